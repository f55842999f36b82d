import type { Message } from "@context-engine/core";

/**
 * A canonical form of a message for prefix comparison: keys sorted, and
 * `cache_control` markers dropped, because moving a cache breakpoint does not
 * change the tokens a provider can reuse.
 */
export function canonicalMessage(message: Message): string {
  return JSON.stringify(canonicalValue(message));
}

function canonicalValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalValue);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value as Record<string, unknown>).sort()) {
      if (key === "cache_control") continue;
      const v = (value as Record<string, unknown>)[key];
      if (v === undefined) continue;
      out[key] = canonicalValue(v);
    }
    return out;
  }
  return value;
}

export interface PrefixSnapshot {
  keys: string[];
  tokens: number[];
  total: number;
}

export function snapshotRequest(messages: readonly Message[], countMessage: (m: Message) => number): PrefixSnapshot {
  const keys: string[] = [];
  const tokens: number[] = [];
  let total = 0;
  for (const m of messages) {
    keys.push(canonicalMessage(m));
    const t = countMessage(m);
    tokens.push(t);
    total += t;
  }
  return { keys, tokens, total };
}

export interface PrefixReuse {
  /** Leading messages of `previous` that `next` repeats unchanged. */
  messages: number;
  /** Their tokens. */
  tokens: number;
  /** `tokens / previous.total`, or null when the previous request was empty. */
  share: number | null;
}

/**
 * How much of the previous request a new request repeats unchanged at its
 * start, measured in the previous request's tokens: the part of the prompt a
 * provider's prefix cache could serve.
 */
export function prefixReuse(previous: PrefixSnapshot, next: PrefixSnapshot): PrefixReuse {
  const limit = Math.min(previous.keys.length, next.keys.length);
  let i = 0;
  let tokens = 0;
  while (i < limit && previous.keys[i] === next.keys[i]) {
    tokens += previous.tokens[i] ?? 0;
    i++;
  }
  return { messages: i, tokens, share: previous.total > 0 ? tokens / previous.total : null };
}
