import type { Message } from "@context-engine/core";
import { contentText } from "@context-engine/core";
import { RESTATED_REQUEST_HEADER, extractSummaryBody, isSummaryMessage, unwrapMergedContent } from "./markers.js";
import type { SessionState } from "./session-state.js";

/**
 * Reading a transcript that may already carry summaries: what the user asked,
 * and which summary to update.
 */

/** A message without any summary an earlier compaction merged into it. */
export function withoutSummary(message: Message): Message {
  return isSummaryMessage(message) ? (unwrapMergedContent(message) ?? message) : message;
}

function requestText(raw: Message): string | null {
  if (raw.role !== "user") return null;
  const m = isSummaryMessage(raw) ? unwrapMergedContent(raw) : raw;
  if (!m) return null;
  const text = contentText(m.content).trim();
  if (!text) return null;
  return text.startsWith(RESTATED_REQUEST_HEADER) ? text.slice(RESTATED_REQUEST_HEADER.length).trim() : text;
}

/** Text of the first user message that is not a summary, or null. */
export function firstRequestText(messages: readonly Message[]): string | null {
  for (const m of messages) {
    const text = requestText(m);
    if (text) return text;
  }
  return null;
}

/** Verbatim text of the newest user request before `end` (the summarised part), or null. */
export function latestRequestText(messages: readonly Message[], end: number): string | null {
  for (let i = Math.min(end, messages.length) - 1; i >= 0; i--) {
    const text = requestText(messages[i]!);
    if (text) return text;
  }
  return null;
}

/** Whether every message is a standalone summary (nothing new to summarise). */
export function onlySummaries(messages: readonly Message[]): boolean {
  return messages.length > 0 && messages.every((m) => isSummaryMessage(m) && unwrapMergedContent(m) === null);
}

/** Whether a summary sits within the first `window` messages (head protection then decays). */
export function hasSummaryNear(messages: readonly Message[], window: number): boolean {
  const end = Math.min(messages.length, window);
  for (let i = 0; i < end; i++) if (isSummaryMessage(messages[i]!)) return true;
  return false;
}

/**
 * The summary to update: the one the transcript itself carries (newest
 * first). The session's remembered body is used only when it is that very
 * summary, so a summary from another session (or one the host rolled back)
 * never leaks into this one.
 */
export function previousSummaryFor(messages: readonly Message[], state: SessionState): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (!isSummaryMessage(messages[i]!)) continue;
    const carried = extractSummaryBody(messages[i]!);
    const remembered = state.previousSummary?.trim();
    return remembered && carried === remembered ? remembered : carried;
  }
  return null;
}

const KNOWN_ROLES = new Set(["system", "developer", "user", "assistant", "tool"]);

/** Every entry is an object with a role the compressor knows; anything else is left unchanged. */
export function wellFormed(messages: readonly unknown[]): boolean {
  for (const m of messages) {
    if (!m || typeof m !== "object" || !KNOWN_ROLES.has((m as { role?: unknown }).role as string)) return false;
  }
  return true;
}
