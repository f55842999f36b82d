import type { TokenCounter } from "@context-engine/core";

/** Cut text to about `maxTokens`, at a line boundary, with a note. */
export function capText(text: string, counter: TokenCounter, maxTokens: number, note: string): string {
  const tokens = counter.countText(text);
  if (tokens <= maxTokens) return text;
  const keepChars = Math.max(200, Math.floor(text.length * (maxTokens / tokens)) - note.length - 10);
  let cut = text.slice(0, keepChars);
  const nl = cut.lastIndexOf("\n");
  if (nl > keepChars * 0.6) cut = cut.slice(0, nl);
  return `${cut}\n[… ${note}]`;
}
