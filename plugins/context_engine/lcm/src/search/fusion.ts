/**
 * Reciprocal rank fusion: each list gives an item weight / (k + rank) (rank from 1), summed over
 * the lists that hold it. Only ranks count, so BM25 scores and cosine similarities need no common
 * scale. k = 60 is the usual constant (Cormack et al. 2009): it flattens the head of each list,
 * so an item ranked well by both beats one ranked first by only one.
 */
export const RRF_K = 60;

export interface RankedList {
  /** Item keys, best first (duplicates after the first are ignored). */
  keys: readonly string[];
  weight: number;
}

export interface Fused {
  key: string;
  score: number;
}

export function reciprocalRankFusion(lists: readonly RankedList[], k = RRF_K): Fused[] {
  const scores = new Map<string, number>();
  // Ties keep the order of the first list that holds the item, earlier lists first (words before vectors).
  const order = new Map<string, number>();
  let n = 0;
  for (const list of lists) {
    const seen = new Set<string>();
    list.keys.forEach((key, i) => {
      if (seen.has(key)) return;
      seen.add(key);
      scores.set(key, (scores.get(key) ?? 0) + list.weight / (k + i + 1));
      if (!order.has(key)) order.set(key, n++);
    });
  }
  return [...scores]
    .map(([key, score]) => ({ key, score }))
    .sort((a, b) => b.score - a.score || order.get(a.key)! - order.get(b.key)!);
}
