import type { ScoredRow } from "../store/search-types.js";

/**
 * Reciprocal rank fusion of ranked lists of rows: a row scores
 * Σ weight_i / (k + rank_i) over the lists holding it (rank from 1), k = 60 as
 * in the original RRF paper. Self-contained so any second ranking (a
 * feedback round, vector similarity) merges with the word ranking the same way.
 */
export const RRF_K = 60;

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
