import type { Message } from "@context-engine/core";
import { SUMMARY_END_MARKER } from "./markers.js";

/**
 * Where the summary goes and with which role, so template-visible roles still
 * alternate. Tool results and assistant messages that carry tool calls are
 * invisible to strict chat templates, so they do not count.
 *
 * - After a system prompt (or at the start) the summary is a user message:
 *   many templates require the first turn after the system prompt to be a user.
 * - After a user turn it is an assistant message; after an assistant, a user.
 * - If the next visible message has the same role, the other role is used when
 *   that still alternates; otherwise the summary is merged into the first
 *   message after it (the live request follows the end marker).
 */
type VisibleRole = "system" | "user" | "assistant" | null;

function visibleRole(m: Message): VisibleRole {
  if (m.role === "tool") return null;
  if (m.role === "assistant") {
    const calls = (m as { tool_calls?: unknown }).tool_calls;
    return Array.isArray(calls) && calls.length > 0 ? null : "assistant";
  }
  if (m.role === "system" || m.role === "developer") return "system";
  return "user";
}

function lastVisible(messages: readonly Message[]): VisibleRole {
  for (let i = messages.length - 1; i >= 0; i--) {
    const r = visibleRole(messages[i]!);
    if (r) return r;
  }
  return null;
}

function firstVisible(messages: readonly Message[]): VisibleRole {
  for (const m of messages) {
    const r = visibleRole(m);
    if (r) return r;
  }
  return null;
}

/** Prepend `summaryText` (ending in the end marker) to a message's content. */
function mergeInto(target: Message, summaryText: string): Message {
  const content = target.content;
  if (Array.isArray(content)) {
    return { ...target, content: [{ type: "text", text: summaryText }, ...content] } as Message;
  }
  const rest = typeof content === "string" ? content : "";
  return { ...target, content: rest ? `${summaryText}\n\n${rest}` : summaryText } as Message;
}

/**
 * Assemble head + summary + rest. `summaryText` is the full wrapped summary
 * (prefix … end marker). Returns a new list; input messages are not mutated.
 */
export function placeSummary(head: readonly Message[], summaryText: string, rest: readonly Message[]): Message[] {
  const before = head.length === 0 ? null : lastVisible(head);
  const after = firstVisible(rest);
  const leadsAfterSystem = before === null || before === "system";
  let role: "user" | "assistant" = before === "user" ? "assistant" : "user";

  if (after === role) {
    const flipped = role === "user" ? "assistant" : "user";
    if (!leadsAfterSystem && flipped !== before) {
      role = flipped;
    } else {
      // Merge into the first message after the summary. When the first
      // visible one is further down, that is an assistant tool-call message
      // (its content may carry text, and the summary stays before the work it
      // precedes). Never a tool row: an orphan result is dropped by the pair
      // check, and the summary with it.
      const at = rest.findIndex((m) => m.role !== "tool");
      if (at >= 0) return [...head, ...rest.slice(0, at), mergeInto(rest[at]!, summaryText), ...rest.slice(at + 1)];
    }
  }
  const summary = { role, content: summaryText } as Message;
  return [...head, summary, ...rest];
}

/** Whether a summary text ends with the marker that separates it from live content. */
export function hasEndMarker(text: string): boolean {
  return text.trimEnd().endsWith(SUMMARY_END_MARKER);
}

/**
 * The latest user request, restated after the summary when its turn was too
 * large to keep whole. The original content is kept verbatim after a header.
 */
export function restateRequest(message: Message, header: string): Message {
  const content = message.content;
  if (Array.isArray(content)) {
    const first = content[0] as { text?: unknown } | undefined;
    if (first?.text === header) return message;
    return { ...message, content: [{ type: "text", text: header }, ...content] } as Message;
  }
  const text = typeof content === "string" ? content : "";
  // Restated once already (an earlier compaction): do not stack headers.
  if (text.startsWith(header)) return message;
  return { ...message, content: `${header}\n${text}` } as Message;
}
