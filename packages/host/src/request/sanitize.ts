import type { Message } from "@context-engine/core";
import { listGeneration } from "./list-edits.js";
import { fixMessageSurrogates, messageHasLoneSurrogate } from "./surrogates.js";

export interface SanitizeResult {
  /** The very input array when nothing needed repair; a new array otherwise. */
  messages: Message[];
  /** One short line per repair, for events and logs. */
  repairs: string[];
}

// Per message object: whether it has a lone surrogate, checked against the
// content and tool-call references so an edited message is re-checked.
const surrogateCache = new WeakMap<object, { content: unknown; calls: unknown; bad: boolean }>();

function messageCachedSurrogate(message: Message, trustCache: boolean): boolean {
  const m = message as Record<string, unknown>;
  const hit = trustCache ? surrogateCache.get(message) : undefined;
  if (hit && hit.content === m.content && hit.calls === m.tool_calls) return hit.bad;
  const bad = messageHasLoneSurrogate(m);
  surrogateCache.set(message, { content: m.content, calls: m.tool_calls, bad });
  return bad;
}

// Per list: the edit generation it was last sanitised at. After an in-place
// edit (markListEdited) the per-message cache above is not trusted either,
// since a content part may have been changed inside an unchanged array.
const sanitizedAt = new WeakMap<Message[], number>();

// Per persisted list: how far it was last found clean. The session's list only
// grows between compactions (a commit replaces the array object), so a repeat
// request re-checks only the tail (unless the list was marked edited in place):
// from the last message that starts a segment (a non-tool message), because
// tool results depend on the call before them.
const cleanPrefix = new WeakMap<Message[], { length: number; anchor: Message; resumeAt: number; generation: number }>();

function isEmptyContent(content: unknown): boolean {
  if (content === null || content === undefined) return true;
  if (typeof content === "string") return content.length === 0;
  if (Array.isArray(content)) return content.length === 0;
  return false;
}

function callId(call: unknown): string | null {
  const id = (call as { id?: unknown } | null)?.id;
  return typeof id === "string" && id ? id : null;
}

export interface SanitizeOptions {
  /**
   * Whether the message at this index of the input is known to have no lone surrogate (the ledger can
   * tell from its canonical forms), so it is not checked; a copy the sanitiser made is always checked.
   */
  wellFormed?: (index: number) => boolean;
}

/**
 * Request sanitisers, run on every request after selection and before cache
 * breakpoints. They never touch the persisted conversation: repairs copy the
 * affected messages, and an already-valid list comes back as the same object
 * (byte-identical request for engines that do not select).
 *
 * - tool results with no matching call in the assistant message directly
 *   before their run (or a second result for one call) are dropped;
 * - tool calls left without a result are stripped from their assistant
 *   message (newest upstream behaviour: strip, do not stub);
 * - assistant turns left with no content and no tool calls are dropped;
 * - lone UTF-16 surrogates are replaced with U+FFFD.
 */
export function sanitizeRequestMessages(messages: Message[], options?: SanitizeOptions): SanitizeResult {
  const repairs: string[] = [];
  let out: Message[] | null = null;
  const n = messages.length;

  const keep = (i: number, message: Message, changed: boolean) => {
    if (changed && out === null) out = messages.slice(0, i);
    if (out !== null) out.push(message);
  };
  const drop = (i: number) => {
    if (out === null) out = messages.slice(0, i);
  };

  const memo = cleanPrefix.get(messages);
  const generation = listGeneration(messages);
  const trustCache = (sanitizedAt.get(messages) ?? generation) === generation;
  sanitizedAt.set(messages, generation);
  const wellFormed = options?.wellFormed;
  const hasSurrogate = (message: Message, at: number) => !(wellFormed && messages[at] === message && wellFormed(at)) && messageCachedSurrogate(message, trustCache);
  let i = memo && memo.generation === generation && memo.length <= n && messages[memo.length - 1] === memo.anchor ? memo.resumeAt : 0;
  while (i < n) {
    const message = messages[i]!;
    const role = (message as { role?: unknown }).role;

    if (role === "tool") {
      // A tool result not inside the run after its assistant message.
      drop(i);
      repairs.push(`dropped orphan tool result ${JSON.stringify((message as { tool_call_id?: unknown }).tool_call_id ?? null)} at ${i}`);
      i++;
      continue;
    }

    if (role === "assistant") {
      const calls = (message as { tool_calls?: unknown }).tool_calls;
      const hasCalls = Array.isArray(calls) && calls.length > 0;
      if (!hasCalls) {
        if (isEmptyContent((message as { content?: unknown }).content)) {
          drop(i);
          repairs.push(`dropped empty assistant turn at ${i}`);
          i++;
          continue;
        }
        const bad = hasSurrogate(message, i);
        if (bad) repairs.push(`replaced lone surrogates in message ${i}`);
        keep(i, bad ? fixMessageSurrogates(message) : message, bad);
        i++;
        continue;
      }

      // The run of tool results directly after this assistant message.
      let j = i + 1;
      while (j < n && (messages[j] as { role?: unknown }).role === "tool") j++;
      if (runAnswersEveryCallInOrder(calls as unknown[], messages, i + 1, j)) {
        // The common case: nothing structural to repair.
        for (let k = i; k < j; k++) {
          const m = messages[k]!;
          const bad = hasSurrogate(m, k);
          if (bad) repairs.push(`replaced lone surrogates in message ${k}`);
          keep(k, bad ? fixMessageSurrogates(m) : m, bad);
        }
        i = j;
        continue;
      }
      const wanted = new Set<string>();
      for (const call of calls as unknown[]) {
        const id = callId(call);
        if (id) wanted.add(id);
      }
      const answered = new Set<string>();
      const runKeep: boolean[] = [];
      for (let k = i + 1; k < j; k++) {
        const id = (messages[k] as { tool_call_id?: unknown }).tool_call_id;
        const ok = typeof id === "string" && wanted.has(id) && !answered.has(id);
        if (ok) answered.add(id as string);
        runKeep.push(ok);
      }
      const keptCalls = (calls as unknown[]).filter((call) => {
        const id = callId(call);
        return id !== null && answered.has(id);
      });
      const stripped = keptCalls.length !== (calls as unknown[]).length;
      let assistant: Message = message;
      let changed = false;
      if (stripped) {
        repairs.push(`stripped ${(calls as unknown[]).length - keptCalls.length} unanswered tool call(s) from message ${i}`);
        const copy = { ...(message as Record<string, unknown>) };
        if (keptCalls.length > 0) copy.tool_calls = keptCalls;
        else delete copy.tool_calls;
        assistant = copy as Message;
        changed = true;
      }
      if (keptCalls.length === 0 && isEmptyContent((assistant as { content?: unknown }).content)) {
        drop(i);
        repairs.push(`dropped empty assistant turn at ${i}`);
      } else {
        if (hasSurrogate(assistant, i)) {
          repairs.push(`replaced lone surrogates in message ${i}`);
          assistant = fixMessageSurrogates(assistant);
          changed = true;
        }
        keep(i, assistant, changed);
      }
      for (let k = i + 1; k < j; k++) {
        const result = messages[k]!;
        if (!runKeep[k - i - 1]) {
          drop(k);
          repairs.push(`dropped orphan tool result ${JSON.stringify((result as { tool_call_id?: unknown }).tool_call_id ?? null)} at ${k}`);
          continue;
        }
        const bad = hasSurrogate(result, k);
        if (bad) repairs.push(`replaced lone surrogates in message ${k}`);
        keep(k, bad ? fixMessageSurrogates(result) : result, bad);
      }
      i = j;
      continue;
    }

    const bad = hasSurrogate(message, i);
    if (bad) repairs.push(`replaced lone surrogates in message ${i}`);
    keep(i, bad ? fixMessageSurrogates(message) : message, bad);
    i++;
  }

  if (repairs.length === 0 && n > 0) {
    let resumeAt = n - 1;
    while (resumeAt > 0 && (messages[resumeAt] as { role?: unknown }).role === "tool") resumeAt--;
    cleanPrefix.set(messages, { length: n, anchor: messages[n - 1]!, resumeAt, generation });
  }
  return { messages: out ?? messages, repairs };
}

/** Whether the tool run [from, to) answers each call exactly once, in call order. */
function runAnswersEveryCallInOrder(calls: unknown[], messages: Message[], from: number, to: number): boolean {
  if (to - from !== calls.length) return false;
  for (let k = 0; k < calls.length; k++) {
    const id = callId(calls[k]);
    if (id === null || (messages[from + k] as { tool_call_id?: unknown }).tool_call_id !== id) return false;
    for (let p = 0; p < k; p++) if (callId(calls[p]) === id) return false;
  }
  return true;
}
