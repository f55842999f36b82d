import type { TokenCounter } from "@context-engine/core";
import { createMessageCounter } from "@context-engine/core";

/** Texts shorter than this are counted directly; caching them costs more than it saves. */
const MIN_CACHED_CHARS = 256;
/** Bound on remembered texts; the cache restarts past it (long-lived multi-session hosts). */
const MAX_CACHED_TEXTS = 50_000;

/**
 * A message counter that survives host snapshots. Core's counters cache per
 * message object, but hosts hand engines a deep copy of the conversation on
 * every pass; the copies share their content strings, so a second cache keyed
 * by the text itself keeps re-counting a 2,000-message snapshot cheap (V8
 * remembers a string's hash, so a lookup does not rescan it).
 */
export function createSnapshotTolerantCounter(base: TokenCounter): TokenCounter {
  const cache = new Map<string, number>();
  const countText = (text: string): number => {
    if (text.length < MIN_CACHED_CHARS) return base.countText(text);
    let n = cache.get(text);
    if (n === undefined) {
      n = base.countText(text);
      if (cache.size >= MAX_CACHED_TEXTS) cache.clear();
      cache.set(text, n);
    }
    return n;
  };
  return createMessageCounter(base.name, base.exact, countText);
}
