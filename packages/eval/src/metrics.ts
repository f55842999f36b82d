import { contentWords } from "./text.js";

/** Share of `evidence` found among the first `k` of `ranked` (each entry a set of ids one hit stands for). */
export function recallAt(ranked: ReadonlyArray<ReadonlySet<string> | readonly string[]>, evidence: readonly string[], k: number): number {
  if (evidence.length === 0) return 0;
  const found = new Set<string>();
  for (const hit of ranked.slice(0, k)) for (const id of hit) found.add(id);
  return evidence.filter((e) => found.has(e)).length / evidence.length;
}

/** Arithmetic mean; 0 for no values. */
export function mean(values: readonly number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}

/** Ratio rounded to 3 decimals (the precision every figure is reported with). */
export function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

export interface ContextEntry {
  text: string;
  words: ReadonlySet<string>;
}

/** Context message texts with their content-word sets, computed once per context. */
export function indexContext(texts: readonly string[]): ContextEntry[] {
  return texts.map((text) => ({ text, words: new Set(contentWords(text)) }));
}

/**
 * Whether a context holds one evidence turn: the turn's text is there verbatim,
 * or one context message contains at least `minShare` of the turn's distinct
 * content words (so a summary that keeps a turn's names, dates and numbers
 * counts, while common words scattered over a whole context do not).
 */
export function holdsTurn(turnText: string, context: readonly ContextEntry[], minShare = 0.6): boolean {
  const words = contentWords(turnText);
  for (const entry of context) {
    if (entry.text.includes(turnText)) return true;
    if (words.length === 0) continue;
    let n = 0;
    for (const w of words) if (entry.words.has(w)) n++;
    if (n / words.length >= minShare) return true;
  }
  return false;
}

/** Newest items whose sizes sum to at most `budget` (in original order). */
export function newestWithin<T>(items: readonly T[], size: (item: T) => number, budget: number): T[] {
  const out: T[] = [];
  let used = 0;
  for (let i = items.length - 1; i >= 0; i--) {
    const s = size(items[i]!);
    if (used + s > budget) break;
    used += s;
    out.push(items[i]!);
  }
  return out.reverse();
}
