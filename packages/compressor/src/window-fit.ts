import type { Message, TokenCounter } from "@context-engine/core";
import { contentText } from "@context-engine/core";
import { dropOldestGroups, relievePressure, shortenMessage } from "./fit.js";
import { SUMMARY_END_MARKER, isSummaryMessage } from "./markers.js";
import { findLatestUser } from "./protection.js";
import type { CallInfo } from "./prune.js";
import { sanitizeToolPairs } from "./sanitize.js";

/** Share of the window a compacted list may fill: room for tool schemas, framing and estimate error. */
export const WINDOW_SHARE = 0.88;
/** An over-window request is never cut below this many characters: its opening identifies it (hosts check it). */
const MIN_REQUEST_CHARS = 2_000;

/**
 * The hard budget of a compaction: a list that still does not fit the window
 * after summarising and trimming (a long agent turn of many small steps, a
 * paste larger than the window) cannot be sent at all. Drop the oldest tool
 * groups, then shorten the largest user request, keeping its start and end
 * with a note. This is part of the compaction pass (committed only when the
 * host commits the pass), not a per-request selection.
 */
export function fitWindow(messages: Message[], windowLimit: number, counter: TokenCounter, untouchable: ReadonlySet<Message>): Message[] {
  let out = dropOldestGroups(messages, windowLimit, counter, untouchable);
  const total = counter.countMessages(out);
  if (total <= windowLimit) return out;
  let index = -1;
  let largest = 0;
  out.forEach((m, i) => {
    if (m.role !== "user" || (isSummaryMessage(m) && requestPart(m) === null)) return;
    const tokens = counter.countText(requestPart(m) ?? contentText(m.content));
    if (tokens > largest) [index, largest] = [i, tokens];
  });
  if (index < 0) return out;
  const request = out[index]!;
  const chars = (requestPart(request) ?? contentText(request.content)).length;
  const room = Math.max(largest - (total - windowLimit), 100);
  const keepChars = Math.max(MIN_REQUEST_CHARS, Math.floor((chars * room) / Math.max(largest, 1)) - 200);
  const shortened = shortenRequest(request, keepChars);
  if (shortened === request) return out;
  out = out === messages ? out.slice() : out;
  out[index] = shortened;
  return out;
}

/** The text after the summary of a message a summary was merged into, else null. */
function requestPart(message: Message): string | null {
  if (typeof message.content !== "string") return null;
  const end = message.content.indexOf(SUMMARY_END_MARKER);
  return end < 0 ? null : message.content.slice(end + SUMMARY_END_MARKER.length);
}

/** Shorten a request, leaving a summary merged in front of it whole. */
function shortenRequest(message: Message, keepChars: number): Message {
  const rest = requestPart(message);
  if (rest === null) return shortenMessage(message, keepChars);
  const text = message.content as string;
  const shortened = shortenMessage({ ...message, content: rest } as Message, keepChars);
  if (shortened.content === rest) return message;
  return { ...message, content: text.slice(0, text.length - rest.length) + (shortened.content as string) } as Message;
}

/**
 * Nothing to summarise: a list over `limit` can only have its kept tool output
 * trimmed (the latest request untouched), then older steps dropped past the window.
 */
export function relieveWithoutSummary(
  messages: Message[],
  before: number,
  limit: number,
  windowLimit: number,
  counter: TokenCounter,
  calls: Map<string, CallInfo>,
): Message[] {
  if (before <= limit) return messages;
  const latest = findLatestUser(messages);
  const keep = new Set(latest >= 0 ? [messages[latest]!] : []);
  let relieved = relievePressure(messages, limit, counter, keep, calls);
  if (counter.countMessages(relieved) > windowLimit) relieved = fitWindow(relieved, windowLimit, counter, keep);
  return relieved === messages ? messages : sanitizeToolPairs(relieved);
}
