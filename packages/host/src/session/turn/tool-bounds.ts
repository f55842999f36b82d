import { MAX_TOOL_ARGUMENTS_CHARS, MAX_TOOL_ARGUMENTS_DEPTH } from "@context-engine/core";
import type { Message, TokenCounter, ToolCall } from "@context-engine/core";

// The same bounds engines apply with core's parseToolArguments.
const MAX_TOOL_ARGUMENT_CHARS = MAX_TOOL_ARGUMENTS_CHARS;
const MAX_TOOL_ARGUMENT_DEPTH = MAX_TOOL_ARGUMENTS_DEPTH;
/** Share of the window one tool result may fill; a larger one is shortened with a note. */
export const TOOL_RESULT_WINDOW_SHARE = 0.5;

/**
 * Why a tool call's raw arguments cannot be parsed safely, or null. The
 * depth is measured on the text itself (brackets outside strings), so a
 * hostile value never reaches a recursive parser or validator.
 */
export function argumentsProblem(raw: string): string | null {
  if (raw.length > MAX_TOOL_ARGUMENT_CHARS) {
    return `the arguments are ${raw.length.toLocaleString("en-US")} characters long; the host accepts at most ${MAX_TOOL_ARGUMENT_CHARS.toLocaleString("en-US")}`;
  }
  if (jsonDepth(raw, MAX_TOOL_ARGUMENT_DEPTH) > MAX_TOOL_ARGUMENT_DEPTH) {
    return `the arguments are nested more than ${MAX_TOOL_ARGUMENT_DEPTH} levels deep`;
  }
  return null;
}

/** The bracket depth of JSON text, counting stops past `stopAbove`. */
function jsonDepth(text: string, stopAbove: number): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > max) max = depth;
      if (max > stopAbove) return max;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/**
 * The assistant message as it is kept: calls whose arguments were refused
 * carry a short note instead, so no later request resends megabytes the
 * model was told were rejected. The very object when nothing was refused.
 */
export function withRefusedArguments(message: Message, refused: ReadonlyMap<string, string>): Message {
  if (refused.size === 0) return message;
  const calls = (message as { tool_calls?: ToolCall[] | null }).tool_calls ?? [];
  const next = calls.map((call) => {
    const problem = refused.get(call.id);
    if (problem === undefined) return call;
    const note = JSON.stringify({ note: `arguments removed by the host: ${problem}` });
    return { ...call, function: { ...call.function, arguments: note } };
  });
  return { ...message, tool_calls: next } as Message;
}

export interface ShortenedResult {
  content: string;
  /** Set when the result was shortened. */
  shortened: { originalChars: number; originalTokens: number; keptChars: number } | null;
}

/**
 * A tool result far larger than the window cannot be sent (and would fail
 * the turn): keep its start and end, up to `TOOL_RESULT_WINDOW_SHARE` of the
 * window, with a note saying how much was left out. The shortened text is
 * what is both sent and persisted.
 */
export function boundToolResult(content: string, contextLength: number, counter: TokenCounter): ShortenedResult {
  if (!(contextLength > 0)) return { content, shortened: null };
  const maxTokens = Math.floor(contextLength * TOOL_RESULT_WINDOW_SHARE);
  // Cheap first: under ~1 token per character nothing can be over the bound.
  if (content.length <= maxTokens) return { content, shortened: null };
  const tokens = counter.countText(content);
  if (tokens <= maxTokens) return { content, shortened: null };
  const keep = Math.max(200, Math.floor((content.length * maxTokens) / tokens) - 400);
  const head = content.slice(0, Math.floor(keep * 0.7));
  const tail = content.slice(content.length - Math.floor(keep * 0.3));
  const removed = content.length - head.length - tail.length;
  const note =
    `\n[… ${removed.toLocaleString("en-US")} of ${content.length.toLocaleString("en-US")} characters of this tool result were removed by the host: ` +
    `the result (~${tokens.toLocaleString("en-US")} tokens) is larger than the context window (${contextLength.toLocaleString("en-US")} tokens) allows. ` +
    `Ask for a smaller part if you need more …]\n`;
  return { content: head + note + tail, shortened: { originalChars: content.length, originalTokens: tokens, keptChars: head.length + tail.length } };
}
