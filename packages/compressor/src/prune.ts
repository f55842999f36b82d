import type { Message } from "@context-engine/core";
import { contentText, toolCallsOf } from "@context-engine/core";
import { errorLines } from "./fact-patterns.js";

/**
 * Deterministic trimming of tool output: no LLM, same input → same output.
 * Used by `pruneToolResultsOnly` (old results only) and by the fit pass when
 * a compaction still does not fit (recent results too, as a last resort).
 */

export const TRIMMED_TAG = "[tool output trimmed by the context compressor";
export const DUPLICATE_TEXT = "[tool output omitted by the context compressor: identical to a later result of the same call]";

export interface CallInfo {
  name: string;
  arguments: string;
}

/** tool_call_id → the call that produced it. */
export function indexToolCalls(messages: readonly Message[]): Map<string, CallInfo> {
  const calls = new Map<string, CallInfo>();
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    for (const call of toolCallsOf(m)) {
      if (call?.id && call.function) calls.set(call.id, { name: call.function.name, arguments: call.function.arguments });
    }
  }
  return calls;
}

export function isTrimmed(message: Message): boolean {
  const text = typeof message.content === "string" ? message.content : contentText(message.content);
  return text.startsWith(TRIMMED_TAG) || text === DUPLICATE_TEXT;
}

/** Size of a message's content in characters, counting non-text parts by their JSON. */
export function contentChars(message: Message): number {
  const c = message.content;
  if (typeof c === "string") return c.length;
  if (!Array.isArray(c)) return 0;
  let total = 0;
  for (const part of c) {
    const text = (part as { text?: unknown }).text;
    total += typeof text === "string" ? text.length : JSON.stringify(part).length;
  }
  return total;
}

export interface TrimOptions {
  /** Characters kept from the start and the end of the output (0 = a one-line stub). */
  keepHead: number;
  keepTail: number;
}

/** A one-line description of a call, e.g. `bash(command="pytest -x")`, at most ~160 chars. */
export function describeCall(call: CallInfo | undefined): string {
  if (!call) return "a tool call";
  let args = call.arguments.trim();
  try {
    const parsed: unknown = JSON.parse(args);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
      args = Object.entries(parsed as Record<string, unknown>)
        .slice(0, 3)
        .map(([k, v]) => `${k}=${shorten(typeof v === "string" ? JSON.stringify(v) : JSON.stringify(v) ?? "", 60)}`)
        .join(", ");
    }
  } catch {
    // Not JSON: show the raw text, shortened.
  }
  return `${call.name}(${shorten(args.replace(/\s+/g, " "), 120)})`;
}

/** Replace a tool result's content by a stub that names the call, its size and keeps the ends. */
export function trimToolResult(message: Message, call: CallInfo | undefined, options: TrimOptions): Message {
  const text = contentText(message.content);
  const lines = text ? text.split("\n").length : 0;
  const images = Array.isArray(message.content)
    ? message.content.filter((p) => (p as { type?: unknown }).type === "image_url").length
    : 0;
  const size = `${formatInt(text.length)} chars, ${formatInt(lines)} lines${images ? `, ${images} image(s) removed` : ""}`;
  let body = `${TRIMMED_TAG}: ${describeCall(call)} returned ${size}`;
  const { keepHead, keepTail } = options;
  if ((keepHead > 0 || keepTail > 0) && text.length > keepHead + keepTail) {
    const head = text.slice(0, keepHead);
    const tail = text.slice(text.length - keepTail);
    const failures = middleFailures(text.slice(keepHead, text.length - keepTail), Math.floor((keepHead + keepTail) * FAILURE_SHARE), `${head}\n${tail}`);
    body += "; start and end kept]\n";
    body += head;
    body += failures.length
      ? `\n…[${formatInt(text.length - keepHead - keepTail)} chars trimmed; their failure lines:]\n${failures.join("\n")}\n…[end of trimmed part]…\n`
      : `\n…[${formatInt(text.length - keepHead - keepTail)} chars trimmed]…\n`;
    body += tail;
  } else if (keepHead > 0 || keepTail > 0) {
    body += "]\n" + text;
  } else {
    body += "]";
  }
  return { ...message, content: body } as Message;
}

/** Room the failure lines of a trimmed middle may take, as a share of the start and end kept. */
const FAILURE_SHARE = 0.75;

/**
 * The failure lines of a trimmed middle (as `errorLines` finds them), within
 * `room` characters, in their order: a long build or test log often says what
 * went wrong between a start and an end that only say it ran. Failures by
 * their shape come first, then lines merely naming an error; the latest of
 * each first (nearest the verdict). Lines the kept ends hold are not repeated.
 */
function middleFailures(middle: string, room: number, kept: string): string[] {
  const candidates = new Map<string, { text: string; tier: number; at: number }>();
  errorLines(middle).forEach((f, at) => {
    if (!candidates.has(f.text) && !kept.includes(f.text)) candidates.set(f.text, { ...f, at });
  });
  const ranked = [...candidates.values()].sort((a, b) => a.tier - b.tier || b.at - a.at);
  const chosen: Array<{ text: string; at: number }> = [];
  let used = 0;
  for (const f of ranked) {
    if (used + f.text.length + 1 > room) continue;
    chosen.push(f);
    used += f.text.length + 1;
  }
  return chosen.sort((a, b) => a.at - b.at).map((f) => f.text);
}

export interface PruneRangeOptions {
  /** Only tool results in [from, to) are touched. */
  from: number;
  to: number;
  minChars: number;
  trim: TrimOptions;
  calls: Map<string, CallInfo>;
}

/**
 * Trim large tool results in a range and blank out older exact duplicates
 * (the newest copy of an output is kept). Returns a new list when anything
 * changed (unchanged messages are shared by reference), else the input.
 */
export function pruneToolResultRange(
  messages: Message[],
  options: PruneRangeOptions,
): { messages: Message[]; pruned: number } {
  const { from, to, minChars, trim, calls } = options;
  let out: Message[] | null = null;
  let pruned = 0;
  const seen = new Set<string>();
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "tool") continue;
    const chars = contentChars(m);
    if (chars < 200 || isTrimmed(m)) continue;
    // Dedupe runs over the whole list so a recent result can retire an old copy.
    const key = typeof m.content === "string" ? `${chars}:${m.content}` : null;
    const duplicate = key !== null && seen.has(key);
    if (key !== null) seen.add(key);
    if (i < from || i >= to) continue;
    let replacement: Message | null = null;
    if (duplicate) replacement = { ...m, content: DUPLICATE_TEXT } as Message;
    else if (chars >= minChars) replacement = trimToolResult(m, calls.get((m as { tool_call_id: string }).tool_call_id), trim);
    if (replacement && contentChars(replacement) < chars) {
      out ??= messages.slice();
      out[i] = replacement;
      pruned++;
    }
  }
  return { messages: out ?? messages, pruned };
}

export function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/** 12345 → "12,345" (toLocaleString is far slower and locale-dependent). */
export function formatInt(n: number): string {
  const digits = String(Math.trunc(Math.abs(n)));
  let out = "";
  for (let i = 0; i < digits.length; i++) {
    if (i > 0 && (digits.length - i) % 3 === 0) out += ",";
    out += digits[i];
  }
  return n < 0 ? `-${out}` : out;
}
