import { createMessageCounter } from "./message-tokens.js";
import type { TokenCounter } from "./types.js";

export type TiktokenEncodingName = "o200k_base" | "cl100k_base";

const loading = new Map<TiktokenEncodingName, Promise<TokenCounter>>();

/**
 * An exact counter on js-tiktoken. Nothing of js-tiktoken is loaded until the
 * first call; the rank file for the requested encoding is then imported once
 * and shared by every later caller.
 */
export function createTiktokenCounter(encoding: TiktokenEncodingName = "o200k_base"): Promise<TokenCounter> {
  let pending = loading.get(encoding);
  if (!pending) {
    pending = (async () => {
      const [{ Tiktoken }, ranks] = await Promise.all([import("js-tiktoken/lite"), loadRanks(encoding)]);
      const enc = new Tiktoken(ranks);
      // Special tokens in user text are counted as plain text, never rejected.
      const count = (text: string): number => (text ? enc.encode(text, [], []).length : 0);
      return createMessageCounter(encoding, true, count);
    })();
    pending.catch(() => loading.delete(encoding));
    loading.set(encoding, pending);
  }
  return pending;
}

async function loadRanks(encoding: TiktokenEncodingName) {
  switch (encoding) {
    case "o200k_base":
      return (await import("js-tiktoken/ranks/o200k_base")).default;
    case "cl100k_base":
      return (await import("js-tiktoken/ranks/cl100k_base")).default;
  }
}
