/** One posting of a term: its body-column frequency, the row's length in tokens, the message id. */
export interface Posting {
  tf: number;
  len: number;
  id: number;
}

/**
 * The postings that can still be among a term's best `k` under FTS5's bm25,
 * whatever the corpus statistics: bm25 of one term grows with tf and shrinks
 * with the row length for every average length and idf, so a posting with at
 * least `k` others at tf ≥ its tf and length ≤ its length (a tie broken by the
 * higher id, as the ranking does) is beaten by all of them forever. Postings
 * are never revived: deleting a message invalidates the whole list (see the
 * trigger in impact-index.ts). Within one tf, a longer row has more rows above
 * it, so each tf level keeps a prefix of its rows by (length, id desc).
 */
export function skyline(postings: readonly Posting[], k: number): Posting[] {
  const levels = new Map<number, Posting[]>();
  for (const p of postings) {
    let l = levels.get(p.tf);
    if (!l) levels.set(p.tf, (l = []));
    l.push(p);
  }
  const kept: Posting[] = [];
  let higher: number[] = []; // lengths of every posting at a higher tf, ascending
  for (const tf of [...levels.keys()].sort((a, b) => b - a)) {
    const level = levels.get(tf)!.sort((a, b) => a.len - b.len || b.id - a.id);
    for (let i = 0; i < level.length; i++) {
      if (countAtMost(higher, level[i]!.len) + i >= k) break;
      kept.push(level[i]!);
    }
    higher = mergeSorted(higher, level.map((p) => p.len));
  }
  return kept;
}

function countAtMost(sorted: readonly number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function mergeSorted(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = new Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let o = 0;
  while (i < a.length && j < b.length) out[o++] = a[i]! <= b[j]! ? a[i++]! : b[j++]!;
  while (i < a.length) out[o++] = a[i++]!;
  while (j < b.length) out[o++] = b[j++]!;
  return out;
}
