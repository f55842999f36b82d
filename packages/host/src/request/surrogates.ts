/**
 * Lone UTF-16 surrogates (half an emoji cut by a truncation, bad decoding)
 * make providers reject the whole request as invalid JSON/UTF-8. They are
 * replaced with U+FFFD in the request copy only.
 */

type StrWithWellFormed = string & { isWellFormed?: () => boolean; toWellFormed?: () => string };

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_ALL = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function hasLoneSurrogate(text: string): boolean {
  const s = text as StrWithWellFormed;
  if (typeof s.isWellFormed === "function") return !s.isWellFormed();
  return LONE.test(text);
}

export function fixLoneSurrogates(text: string): string {
  const s = text as StrWithWellFormed;
  if (typeof s.toWellFormed === "function") return s.toWellFormed();
  return text.replace(LONE_ALL, "\uFFFD");
}

/** Whether any string inside a message's content or tool calls has a lone surrogate. */
export function messageHasLoneSurrogate(message: Record<string, unknown>): boolean {
  const content = message.content;
  if (typeof content === "string") {
    if (hasLoneSurrogate(content)) return true;
  } else if (Array.isArray(content)) {
    for (const part of content) {
      const text = (part as { text?: unknown } | null)?.text;
      if (typeof text === "string" && hasLoneSurrogate(text)) return true;
    }
  }
  const calls = message.tool_calls;
  if (Array.isArray(calls)) {
    for (const call of calls) {
      const fn = (call as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
      if (typeof fn?.arguments === "string" && hasLoneSurrogate(fn.arguments)) return true;
      if (typeof fn?.name === "string" && hasLoneSurrogate(fn.name)) return true;
    }
  }
  return false;
}

/** A copy of the message with every lone surrogate replaced (only the touched parts are copied). */
export function fixMessageSurrogates<M extends Record<string, unknown>>(message: M): M {
  const out: Record<string, unknown> = { ...message };
  const content = message.content;
  if (typeof content === "string") out.content = fixLoneSurrogates(content);
  else if (Array.isArray(content)) {
    out.content = content.map((part) => {
      const text = (part as { text?: unknown } | null)?.text;
      return typeof text === "string" && hasLoneSurrogate(text) ? { ...(part as object), text: fixLoneSurrogates(text) } : part;
    });
  }
  const calls = message.tool_calls;
  if (Array.isArray(calls)) {
    out.tool_calls = calls.map((call) => {
      const c = call as { function?: Record<string, unknown> };
      const fn = c?.function;
      if (!fn) return call;
      const args = fn.arguments;
      const name = fn.name;
      if (!(typeof args === "string" && hasLoneSurrogate(args)) && !(typeof name === "string" && hasLoneSurrogate(name))) return call;
      return {
        ...c,
        function: {
          ...fn,
          ...(typeof args === "string" ? { arguments: fixLoneSurrogates(args) } : {}),
          ...(typeof name === "string" ? { name: fixLoneSurrogates(name) } : {}),
        },
      };
    });
  }
  return out as M;
}
