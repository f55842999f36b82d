import type { Message } from "@context-engine/core";
import { toolCallsOf } from "@context-engine/core";

/**
 * Last line of defence for tool pairs. Compaction cuts only between atomic
 * units, so on valid input this changes nothing; it exists so that invalid
 * input (orphan results, unanswered calls) still comes out valid:
 *
 * - a tool result is kept only in the run right after the assistant message
 *   that issued its call, once;
 * - an assistant keeps only the calls that got a result; with none left its
 *   `tool_calls` go and empty content becomes a short note;
 * - the trailing assistant (calls in flight, results not produced yet) keeps
 *   its calls untouched.
 *
 * Returns the input object when nothing had to change.
 */
export function sanitizeToolPairs(messages: Message[]): Message[] {
  const n = messages.length;
  let trailingAssistant = -1;
  for (let i = n - 1; i >= 0; i--) {
    const role = messages[i]!.role;
    if (role === "assistant") trailingAssistant = i;
    if (role !== "tool") break;
  }

  const seenIds = new Set<string>();
  let out: Message[] | null = null;
  let i = 0;
  while (i < n) {
    const m = messages[i]!;
    if (m.role === "tool") {
      // A tool row not consumed by a preceding assistant run is an orphan.
      out ??= messages.slice(0, i);
      i++;
      continue;
    }
    if (m.role !== "assistant" || toolCallsOf(m).length === 0) {
      out?.push(m);
      i++;
      continue;
    }
    const calls = toolCallsOf(m);
    const pending = new Map<string, number>();
    for (const c of calls) if (c?.id && !seenIds.has(c.id)) pending.set(c.id, 0);
    let j = i + 1;
    const keptResults: Message[] = [];
    let droppedResult = false;
    while (j < n && messages[j]!.role === "tool") {
      const t = messages[j]! as { tool_call_id?: unknown };
      const id = typeof t.tool_call_id === "string" ? t.tool_call_id : "";
      if (pending.get(id) === 0) {
        pending.set(id, 1);
        keptResults.push(messages[j]!);
      } else droppedResult = true;
      j++;
    }
    for (const c of calls) if (c?.id) seenIds.add(c.id);
    const answered = calls.filter((c) => c?.id && pending.get(c.id) === 1);
    let assistant: Message = m;
    if (i !== trailingAssistant && answered.length !== calls.length) {
      if (answered.length) assistant = { ...m, tool_calls: answered } as Message;
      else {
        const { tool_calls: _drop, ...rest } = m as Message & { tool_calls?: unknown };
        const text = typeof rest.content === "string" ? rest.content : rest.content;
        assistant = { ...rest, content: text === null || text === undefined || text === "" ? "(tool call removed)" : text } as Message;
      }
    }
    if (assistant !== m || droppedResult) out ??= messages.slice(0, i);
    if (out) {
      out.push(assistant);
      out.push(...keptResults);
    }
    i = j;
  }
  return out ?? messages;
}
