/** Cheap per-message token estimate (chars/4 of its JSON), cached per message object. */
const cache = new WeakMap<object, number>();

export function estimateAgentTokens(messages: readonly unknown[]): number {
  let total = 0;
  for (const m of messages) {
    if (!m || typeof m !== "object") continue;
    let count = cache.get(m);
    if (count === undefined) {
      count = Math.ceil((JSON.stringify(m)?.length ?? 0) / 4) + 4;
      cache.set(m, count);
    }
    total += count;
  }
  return total;
}
