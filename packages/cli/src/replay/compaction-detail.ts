import { contentText, toolCallsOf, type Message } from "@context-engine/core";
import { canonicalMessage } from "./prefix.js";

/** One message a compaction took out of the context (or put in). */
export interface DetailMessage {
  /** Position in the conversation before (replaced) or after (added) the compaction. */
  index: number;
  role: string;
  tokens: number;
  /** The text, cut to `MAX_TEXT` characters. */
  text: string;
  /** When the recording says it was said (epoch ms), if it does. */
  at?: number;
}

/** What one committed compaction did to the conversation. */
export interface CompactionDetail {
  messagesBefore: number;
  messagesAfter: number;
  /** Messages that were in the conversation before and are gone after: the span the summary replaced. */
  replaced: DetailMessage[];
  replacedCount: number;
  replacedTokens: number;
  /** Messages that are new after the compaction: the summary (or summaries). */
  added: DetailMessage[];
  addedCount: number;
  /** When the replaced messages were said, by the recording's times (not the replay's clock); absent without times. */
  recordedSpan?: { from: number; to: number };
}

/** Report-size bounds: a compaction of a long session must not turn the report into megabytes. */
const MAX_TEXT = 4000;
const MAX_LISTED = 40;

/**
 * Compare the conversation before and after a compaction, message by
 * message (content, role, tool calls; cache markers ignored). Works for any
 * engine: whatever is gone was replaced, whatever is new is the summary.
 */
export function diffCompaction(
  before: readonly Message[],
  after: readonly Message[],
  countMessage: (m: Message) => number,
  recordedTime: (m: Message) => number | null = () => null,
): CompactionDetail {
  const remaining = multiset(after.map(canonicalMessage));
  const kept = multiset(before.map(canonicalMessage));
  const replaced: DetailMessage[] = [];
  let replacedCount = 0;
  let replacedTokens = 0;
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  before.forEach((m, index) => {
    if (take(remaining, canonicalMessage(m))) return;
    replacedCount++;
    const tokens = countMessage(m);
    replacedTokens += tokens;
    const at = recordedTime(m);
    if (at !== null) (from = Math.min(from, at)), (to = Math.max(to, at));
    if (replaced.length < MAX_LISTED) replaced.push({ ...describe(m, index, tokens), ...(at !== null ? { at } : {}) });
  });
  const added: DetailMessage[] = [];
  let addedCount = 0;
  after.forEach((m, index) => {
    if (take(kept, canonicalMessage(m))) return;
    addedCount++;
    if (added.length < MAX_LISTED) added.push(describe(m, index, countMessage(m)));
  });
  const detail: CompactionDetail = { messagesBefore: before.length, messagesAfter: after.length, replaced, replacedCount, replacedTokens, added, addedCount };
  if (Number.isFinite(from)) detail.recordedSpan = { from, to };
  return detail;
}

/**
 * A message's recorded time. The replay rebuilds the recorded messages (the host adds or drops optional
 * fields), so a message is found by what names it: a tool result by its call id, an assistant message
 * with tool calls by their ids, any other by role and text; the exact message first.
 */
export function recordedTimes(messages: readonly Message[], times: ReadonlyArray<number | null> | undefined): (m: Message) => number | null {
  if (!times) return () => null;
  const byKey = new Map<string, number>();
  messages.forEach((m, i) => {
    const at = times[i];
    if (typeof at !== "number") return;
    for (const key of timeKeys(m)) if (!byKey.has(key)) byKey.set(key, at);
  });
  return (m) => {
    for (const key of timeKeys(m)) {
      const at = byKey.get(key);
      if (at !== undefined) return at;
    }
    return null;
  };
}

function timeKeys(m: Message): string[] {
  const keys = [canonicalMessage(m)];
  if (m.role === "tool") keys.push(`tool:${m.tool_call_id}`);
  const calls = toolCallsOf(m);
  if (calls.length > 0) keys.push(`calls:${calls.map((c) => c.id).join(",")}`);
  else keys.push(`${m.role}:${contentText(m.content ?? "")}`);
  return keys;
}

/**
 * The times the host stamps messages with during a replay: the recorded time, else the last recorded
 * time before it (a message the replay made, or one the recording left undated, such as mini-swe-agent's
 * prompts and observations), else the recording's first time. Null only when the recording has none.
 */
export function replayClock(timeOf: (m: Message) => number | null, times: ReadonlyArray<number | null> | undefined): (m: Message) => number | null {
  let last: number | null = times?.find((t): t is number => typeof t === "number") ?? null;
  return (m) => {
    const at = timeOf(m);
    if (at !== null) last = at;
    return at ?? last;
  };
}

function describe(m: Message, index: number, tokens: number): DetailMessage {
  const calls = toolCallsOf(m).map((c) => `${c.function.name}(${c.function.arguments})`);
  const text = [contentText(m.content), ...calls].filter(Boolean).join("\n");
  return { index, role: m.role, tokens, text: text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text };
}

function multiset(keys: readonly string[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const k of keys) map.set(k, (map.get(k) ?? 0) + 1);
  return map;
}

function take(map: Map<string, number>, key: string): boolean {
  const n = map.get(key) ?? 0;
  if (n === 0) return false;
  map.set(key, n - 1);
  return true;
}
