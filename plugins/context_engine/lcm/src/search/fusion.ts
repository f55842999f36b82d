import type { ScoredRow } from "../store/search-types.js";

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

/**
 * The same fusion over rows of the store's ranking (a feedback round, vector similarity): a row scores
 * Σ weight_i / (k + rank_i) over the lists holding it; ties go to the better single rank, then the newer row.
 */
export function fuseRanked(lists: ReadonlyArray<{ rows: readonly ScoredRow[]; weight: number }>, k = RRF_K): ScoredRow[] {
  const fused = new Map<number, { row: ScoredRow; score: number; best: number }>();
  for (const { rows, weight } of lists) {
    rows.forEach((row, i) => {
      const got = fused.get(row.rowid) ?? { row, score: 0, best: Infinity };
      got.score += weight / (k + i + 1);
      got.best = Math.min(got.best, i);
      fused.set(row.rowid, got);
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || a.best - b.best || b.row.createdAt - a.row.createdAt).map((f) => ({ ...f.row, score: f.score }));
}

/**
 * A reordered list keeps the score scale of the list it reorders: the i-th row
 * takes the i-th best score of `scale` (so summaries, scored on the message
 * BM25 scale, still merge by score). Rows past the scale's length take its last score.
 */
export function onScale(reordered: readonly ScoredRow[], scale: readonly ScoredRow[]): ScoredRow[] {
  const slots = scale.map((r) => r.score).sort((a, b) => b - a);
  const last = slots.length ? slots[slots.length - 1]! : 0;
  return reordered.map((r, i) => ({ ...r, score: slots[i] ?? last }));
}
