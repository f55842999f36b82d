import { contentText, estimateTextTokens } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { CONTEXT_TAG, SUMMARY_OPEN, isEngineMessage } from "./render.js";

/**
 * The user's latest request must reach the model with every assembled context:
 * the host refuses a context without it, and an agent that loses its task
 * statement wanders. When the request itself was compacted (a long agent turn
 * started by one user message), it is quoted verbatim inside LCM's context
 * block, which is never stored, so the store and transcript alignment are
 * unaffected.
 */

const CLOSE_TAG = "</lcm_context>";
// The quote sits where the request was made (before everything kept after it), so it names that point,
// not "the latest": a view kept into a later turn must stay true. "Summarised above" only over summaries.
const HEADING = "The user's request at this point of the conversation, quoted verbatim";
const AROUND_SUMMARISED = "(the messages around it are summarised above or found by lcm_grep):";
const AROUND_SEARCHABLE = "(the messages around it are not shown here; lcm_grep finds them):";

/** The newest user message of the host's list that is not LCM's own. */
export function latestRequest(messages: readonly Message[]): Message | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "user" && !isEngineMessage(m)) return m;
  }
  return null;
}

/**
 * The request of the turn being assembled. A host that hands the turn's message over separately
 * (`incomingMessage`) sends it after the list itself, so the list's newest user message is an earlier
 * turn's: then the request is the list's copy of the incoming message when the list ends with that turn
 * (a later step of it), else null (the host adds it; nothing to keep). Without one, the list's newest.
 */
export function turnRequest(messages: readonly Message[], incoming: Message | null | undefined): Message | null {
  if (!incoming) return latestRequest(messages);
  const wanted = contentText(incoming.content).trim();
  const newest = latestRequest(messages);
  if (!newest || !wanted) return null;
  if (sameContent(newest, incoming)) return newest;
  // The host may decorate its transcript copy (a timestamp, a sender line) around the user's words.
  return contentText(newest.content).includes(wanted) ? newest : null;
}

/** LCM's own block of summaries (a shortened message is ours too, but it stays in its place). */
function isContextBlock(m: Message): m is Message & { content: string } {
  return m.role === "user" && typeof m.content === "string" && m.content.startsWith(CONTEXT_TAG);
}

function sameContent(a: Message, b: Message): boolean {
  // Text content (the usual case) prints the same only when it is the same string, and never as an array
  // of parts does: compared without building either's JSON (every user message of an assembly is compared).
  if (typeof a.content === "string" || typeof b.content === "string") return a.content === b.content;
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
  // Before the first message that is neither the host's head nor ours: everything kept came after the request.
  let at = out.findIndex((m, i) => i >= headLength && !isContextBlock(m));
  if (at < 0) at = out.length;
  const before = out[at - 1];
  const joins = at > headLength && before !== undefined && isContextBlock(before) && before.content.endsWith(CLOSE_TAG);
  const summarised = joins && (before as { content: string }).content.includes(SUMMARY_OPEN);
  const section = `${HEADING} ${summarised ? AROUND_SUMMARISED : AROUND_SEARCHABLE}\n${text}`;
  if (joins && before && isContextBlock(before)) {
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
