import type { Message, TokenCounter } from "@context-engine/core";
import { formatInt, isTrimmed, trimToolResult } from "./prune.js";
import type { CallInfo } from "./prune.js";

/**
 * Last-resort concessions when head + summary + minimal tail still exceed
 * the limit (huge tool outputs or messages in the kept region). Applied in
 * order, each only while still over the limit:
 *
 * 1. trim kept tool results except the newest, keeping their start and end;
 * 2. the same for the newest tool result;
 * 3. shorten other long kept messages (never the latest user request or the
 *    summary), keeping their start and end;
 * 4. reduce trimmed tool results to one-line stubs.
 *
 * Messages in `untouchable` and system prompts are never changed: a result
 * slightly over the threshold is better than an agent with half its rules.
 */
export function relievePressure(
  messages: Message[],
  limit: number,
  counter: TokenCounter,
  untouchable: ReadonlySet<Message>,
  calls: Map<string, CallInfo>,
): Message[] {
  let out = messages;
  let total = counter.countMessages(out);
  if (total <= limit) return out;

  const replace = (i: number, next: Message) => {
    if (out === messages) out = messages.slice();
    total += counter.countMessage(next) - counter.countMessage(out[i]!);
    out[i] = next;
  };
  const toolIndices = () => out.flatMap((m, i) => (m.role === "tool" && !untouchable.has(m) ? [i] : []));

  // Sizes in tokens, not characters: a screenshot result is a few words of
  // text but hundreds of tokens per image part.
  const worthTrimming = (m: Message, minTokens: number) => counter.countMessage(m) >= minTokens;

  // 1 + 2: trim tool results, oldest first, the newest last.
  const tools = toolIndices();
  for (const i of tools) {
    if (total <= limit) return out;
    const m = out[i]!;
    if (isTrimmed(m) || !worthTrimming(m, 300)) continue;
    replace(i, trimToolResult(m, calls.get((m as { tool_call_id: string }).tool_call_id), { keepHead: 500, keepTail: 300 }));
  }
  // 3: shorten other long messages, largest first.
  const others = out
    .map((m, i) => [i, counter.countMessage(m)] as const)
    .filter(([i]) => out[i]!.role !== "tool" && !untouchable.has(out[i]!) && out[i]!.role !== "system" && out[i]!.role !== "developer")
    .sort((a, b) => b[1] - a[1]);
  for (const [i] of others) {
    if (total <= limit) return out;
    const shortened = shortenMessage(out[i]!, 1_600);
    if (shortened !== out[i]) replace(i, shortened);
  }
  // 4: stubs only.
  for (const i of toolIndices()) {
    if (total <= limit) return out;
    const m = out[i]!;
    if (!worthTrimming(m, 75)) continue;
    replace(i, trimToolResult(m, calls.get((m as { tool_call_id: string }).tool_call_id), { keepHead: 0, keepTail: 0 }));
  }
  return out;
}

/** Keep the start and end of a long string content, and of long tool-call arguments. */
export function shortenMessage(message: Message, maxChars: number): Message {
  let changed = false;
  const next = { ...message } as Record<string, unknown>;
  if (typeof message.content === "string" && message.content.length > maxChars) {
    next.content = cutMiddle(message.content, maxChars);
    changed = true;
  } else if (Array.isArray(message.content)) {
    // Content parts: long text parts are cut the same way; other parts stay.
    const parts = message.content.map((part) => {
      const text = (part as { text?: unknown } | null)?.text;
      if (typeof text !== "string" || text.length <= maxChars) return part;
      changed = true;
      return { ...(part as object), text: cutMiddle(text, maxChars) };
    });
    if (changed) next.content = parts;
  }
  const calls = (message as { tool_calls?: unknown }).tool_calls;
  if (Array.isArray(calls)) {
    const shortened = calls.map((c) => {
      const args = (c as { function?: { arguments?: unknown } })?.function?.arguments;
      if (typeof args !== "string" || args.length <= maxChars) return c;
      changed = true;
      return { ...c, function: { ...(c as { function: object }).function, arguments: shortenArguments(args, maxChars) } };
    });
    if (changed) next.tool_calls = shortened;
  }
  return changed ? (next as Message) : message;
}

function cutMiddle(text: string, max: number): string {
  const head = Math.floor(max * 0.6);
  const tail = Math.floor(max * 0.3);
  return `${text.slice(0, head)}\n…[${formatInt(text.length - head - tail)} chars removed by the context compressor]…\n${text.slice(text.length - tail)}`;
}

/**
 * Shorten tool-call arguments while keeping them valid JSON when they were
 * (adapters for some providers parse them): long string leaves are cut.
 */
function shortenArguments(args: string, maxChars: number): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    return cutMiddle(args, maxChars);
  }
  const leafMax = Math.max(200, Math.floor(maxChars / 4));
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return v.length > leafMax ? cutMiddle(v, leafMax) : v;
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  const out = JSON.stringify(walk(parsed));
  return out.length < args.length ? out : args;
}

/**
 * When trimming is not enough (a long agent turn of many small steps), drop
 * whole tool groups (an assistant with calls and its results), oldest first,
 * from the messages after the leading system prompt, until the list fits.
 * Messages in `untouchable` and the newest group stay. A note on the first
 * message kept after a gap says what is missing.
 */
export function dropOldestGroups(messages: Message[], limit: number, counter: TokenCounter, untouchable: ReadonlySet<Message>): Message[] {
  let total = counter.countMessages(messages);
  if (total <= limit) return messages;
  const groups: Array<[number, number]> = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role !== "assistant" || untouchable.has(m)) continue;
    let end = i + 1;
    while (end < messages.length && messages[end]!.role === "tool") end++;
    groups.push([i, end]);
    i = end - 1;
  }
  const drop = new Set<number>();
  let dropped = 0;
  for (const [start, end] of groups.slice(0, -1)) {
    if (total <= limit) break;
    for (let i = start; i < end; i++) {
      if (untouchable.has(messages[i]!)) continue;
      drop.add(i);
      total -= counter.countMessage(messages[i]!);
    }
    dropped += end - start;
  }
  if (drop.size === 0) return messages;
  const out: Message[] = [];
  let noted = false;
  for (let i = 0; i < messages.length; i++) {
    if (drop.has(i)) continue;
    const m = messages[i]!;
    if (!noted && i > 0 && drop.has(i - 1) && m.role === "assistant") {
      const note = `[${dropped} earlier messages of this agent turn were removed by the context compressor to fit the context window.]`;
      const text = typeof m.content === "string" ? m.content : "";
      out.push({ ...m, content: text ? `${note}\n${text}` : note } as Message);
      noted = true;
      continue;
    }
    out.push(m);
  }
  return out;
}
