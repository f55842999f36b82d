import { contentText, estimateTextTokens } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { CONTEXT_TAG, isEngineMessage } from "./render.js";

/**
 * The user's latest request must reach the model with every assembled context:
 * the host refuses a context without it, and an agent that loses its task
 * statement wanders. When the request itself was compacted (a long agent turn
 * started by one user message), it is quoted verbatim inside LCM's context
 * block, which is never stored, so the store and transcript alignment are
 * unaffected.
 */

const CLOSE_TAG = "</lcm_context>";
const HEADING = "The user's latest request, quoted verbatim (the messages around it are summarised above or found by lcm_grep):";

/** The newest user message of the host's list that is not LCM's own. */
export function latestRequest(messages: readonly Message[]): Message | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "user" && !isEngineMessage(m)) return m;
  }
  return null;
}

/** LCM's own block of summaries (a shortened message is ours too, but it stays in its place). */
function isContextBlock(m: Message): m is Message & { content: string } {
  return m.role === "user" && typeof m.content === "string" && m.content.startsWith(CONTEXT_TAG);
}

function sameContent(a: Message, b: Message): boolean {
  return JSON.stringify(a.content) === JSON.stringify(b.content);
}

export interface KeptRequest {
  messages: Message[];
  /** Tokens added by quoting the request (0 when it was already there). */
  addedTokens: number;
}

/** `assembled` with `request` in it: as it is, or quoted in the context block before the first kept message. */
export function keepRequest(assembled: readonly Message[], request: Message | null, headLength: number): KeptRequest {
  const out = assembled.slice();
  if (!request || out.some((m) => m.role === "user" && sameContent(m, request))) return { messages: out, addedTokens: 0 };
  const text = contentText(request.content);
  if (!text.trim()) return { messages: out, addedTokens: 0 };
  const section = `${HEADING}\n${text}`;
  // Before the first message that is neither the host's head nor ours: everything kept came after the request.
  let at = out.findIndex((m, i) => i >= headLength && !isContextBlock(m));
  if (at < 0) at = out.length;
  const before = out[at - 1];
  if (at > headLength && before && isContextBlock(before) && before.content.endsWith(CLOSE_TAG)) {
    // One context block, not two user messages in a row.
    const body = before.content.slice(0, -CLOSE_TAG.length);
    out[at - 1] = { ...before, content: `${body}${section}\n${CLOSE_TAG}` } as Message;
  } else {
    out.splice(at, 0, { role: "user", content: `${CONTEXT_TAG}\n${section}\n${CLOSE_TAG}` });
  }
  return { messages: out, addedTokens: estimateTextTokens(section) + 4 };
}

/** Whether `m` is (a copy of) the request, which must never be shortened. */
export function isRequest(m: Message, request: Message | null): boolean {
  return request !== null && m.role === "user" && sameContent(m, request);
}
