import type { Message } from "../messages.js";
import { IMAGE_PART_TOKENS, MESSAGE_OVERHEAD_TOKENS } from "./types.js";
import type { TokenCounter } from "./types.js";

/**
 * Builds a message-aware, cached TokenCounter from a text counter.
 *
 * Counts are cached per message object (WeakMap), keyed by the object and
 * checked against its content and tool calls, so re-counting a growing
 * conversation only tokenizes the new (or edited) messages.
 */
export function createMessageCounter(
  name: string,
  exact: boolean,
  countText: (text: string) => number,
): TokenCounter {
  const cache = new WeakMap<object, { content: unknown; calls: unknown; count: number }>();

  const uncached = (message: Message): number => {
    let total = MESSAGE_OVERHEAD_TOKENS;
    const m = message as Record<string, unknown>;
    const content = m.content;
    if (typeof content === "string") total += countText(content);
    else if (Array.isArray(content)) {
      for (const part of content) {
        if (!part || typeof part !== "object") continue;
        const p = part as Record<string, unknown>;
        if (typeof p.text === "string") total += countText(p.text);
        else if (p.type === "image_url" || p.type === "image") total += IMAGE_PART_TOKENS;
        else total += countText(JSON.stringify(p));
      }
    }
    if (typeof m.name === "string") total += countText(m.name);
    const calls = m.tool_calls;
    if (Array.isArray(calls)) {
      for (const call of calls) {
        const fn = (call as { function?: { name?: unknown; arguments?: unknown } })?.function;
        total += 3;
        if (typeof fn?.name === "string") total += countText(fn.name);
        if (typeof fn?.arguments === "string") total += countText(fn.arguments);
      }
    }
    if (typeof m.tool_call_id === "string") total += 2;
    return total;
  };

  const countMessage = (message: Message): number => {
    if (!message || typeof message !== "object") return 0;
    const m = message as Record<string, unknown>;
    const hit = cache.get(message);
    if (hit && hit.content === m.content && hit.calls === m.tool_calls) return hit.count;
    const count = uncached(message);
    cache.set(message, { content: m.content, calls: m.tool_calls, count });
    return count;
  };

  return {
    name,
    exact,
    countText,
    countMessage,
    countMessages(messages) {
      let total = 0;
      for (const m of messages) total += countMessage(m);
      return total;
    },
  };
}
