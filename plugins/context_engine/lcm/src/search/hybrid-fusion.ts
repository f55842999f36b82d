/**
 * How lcm_grep fuses the word ranking with the vector ranking (hybrid retrieval).
 *
 * A weak embedding model must not push a good word match off the page, so the rule is one-sided:
 *  1. The head: the leading word hits scoring at least `gate` × the best word score (BM25). They keep their
 *     places; vectors cannot demote them. The best word hit is always in the head.
 *  2. Below the head, one score per item: its word score over the best word score (0..1, 0 when words
 *     did not find it) plus its cosine similarity min-max scaled over the vector list (0..1, 0 when vectors
 *     did not find it) divided by `lexicalWeight`. Both parts are on a 0..1 scale of their own list, so BM25
 *     and cosine need no common unit; words weigh `lexicalWeight` times more.
 * With no vectors the fused list is the word ranking; with no words it is the vector ranking.
 */

export interface WordHit {
  key: string;
  /** BM25 relevance (higher is better). */
  score: number;
}

export interface VectorHit {
  key: string;
  /** Cosine similarity (higher is closer). */
  similarity: number;
}

export interface HybridFusionOptions {
  /** A word hit scoring at least gate × the best word score, and every word hit above it, keeps its place (0..1). */
  gate: number;
  /** How many times the word part outweighs the vector part below the head (> 0). */
  lexicalWeight: number;
}

export interface FusedHit {
  key: string;
  /** Non-increasing down the list: the head's entries carry the best score below them plus their own. */
  score: number;
  /** True for an entry of the protected word head. */
  head: boolean;
}

/** The number of leading word hits that are strong enough to keep their places. */
export function lexicalHeadLength(words: readonly WordHit[], gate: number): number {
  if (words.length === 0) return 0;
  const best = words[0]!.score;
  let n = 1;
  while (n < words.length && words[n]!.score >= gate * best) n++;
  return n;
}

export function fuseHybrid(words: readonly WordHit[], vectors: readonly VectorHit[], opts: HybridFusionOptions): FusedHit[] {
  const wordList = dedupe(words);
  const vectorList = dedupe(vectors);
  const headLength = lexicalHeadLength(wordList, opts.gate);
  const head = wordList.slice(0, headLength);
  const inHead = new Set(head.map((w) => w.key));

  const best = wordList[0]?.score ?? 0;
  const hi = vectorList[0]?.similarity ?? 0;
  const lo = vectorList.length ? vectorList[vectorList.length - 1]!.similarity : 0;
  const wordPart = (s: number) => (best > 0 ? s / best : 0);
  const vectorPart = (s: number) => (hi > lo ? (s - lo) / (hi - lo) : 1) / opts.lexicalWeight;

  const below = new Map<string, { score: number; wordRank: number; vectorRank: number }>();
  wordList.forEach((w, i) => {
    if (!inHead.has(w.key)) below.set(w.key, { score: wordPart(w.score), wordRank: i, vectorRank: Infinity });
  });
  vectorList.forEach((v, i) => {
    if (inHead.has(v.key)) return;
    const got = below.get(v.key) ?? { score: 0, wordRank: Infinity, vectorRank: Infinity };
    got.score += vectorPart(v.similarity);
    got.vectorRank = i;
    below.set(v.key, got);
  });
  // Ties: the better word rank, then the better vector rank (words first).
  const rest = [...below].sort(([, a], [, b]) => b.score - a.score || a.wordRank - b.wordRank || a.vectorRank - b.vectorRank);

  const out: FusedHit[] = rest.map(([key, r]) => ({ key, score: r.score, head: false }));
  // The head's scores: its own fused score, raised to stay above everything below it.
  let floor = out[0]?.score ?? 0;
  const headOut: FusedHit[] = [];
  for (let i = head.length - 1; i >= 0; i--) {
    const w = head[i]!;
    const v = vectorList.find((x) => x.key === w.key);
    floor = Math.max(floor, wordPart(w.score) + (v ? vectorPart(v.similarity) : 0));
    headOut.unshift({ key: w.key, score: floor, head: true });
  }
  return [...headOut, ...out];
}

function dedupe<T extends { key: string }>(list: readonly T[]): T[] {
  const seen = new Set<string>();
  return list.filter((x) => (seen.has(x.key) ? false : (seen.add(x.key), true)));
}
