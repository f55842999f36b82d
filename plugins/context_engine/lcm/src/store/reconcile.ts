import { diffArrays } from "diff";

/**
 * Which messages of a host's list are already stored, when nothing cheaper
 * (a writer position, a turn key) tells. Pure logic, separated from SQL.
 *
 * The rule is "never skip": a list message counts as stored only when it is
 * part of the longest order-preserving match between the list and the stored
 * history (by identity hash). Everything else is new. A list that is behind
 * the store matches wholly and adds nothing; messages another writer stored
 * in between are simply not in the list; a repeated message ("continue" twice)
 * matches once and its repeat is new; an empty message with the same hash as
 * one stored elsewhere cannot pull the match away from the true order, because
 * the longest match wins, not the nearest one.
 */

/** Edits past which the exact diff gives way to a greedy in-order match (a host list with nothing in common). */
const MAX_EDITS = 20_000;

/**
 * For each list position, the stored position it matches, or -1. Order is
 * kept on both sides. Among equally long matches the latest stored copies
 * win (the diff runs from the end): what a host kept of its history is its
 * recent part, and a repeat of an old message is matched to the newest copy.
 */
export function matchInOrder(list: readonly string[], stored: readonly string[]): Int32Array {
  const out = new Int32Array(list.length).fill(-1);
  if (list.length === 0 || stored.length === 0) return out;
  const L = list.length;
  const S = stored.length;
  const changes = diffArrays(stored.slice().reverse(), list.slice().reverse(), { maxEditLength: MAX_EDITS });
  if (!changes) return greedyInOrder(list, stored, out);
  let s = 0;
  let l = 0;
  for (const c of changes) {
    const n = c.count ?? c.value.length;
    if (c.added) l += n;
    else if (c.removed) s += n;
    else {
      for (let k = 0; k < n; k++) out[L - 1 - (l + k)] = S - 1 - (s + k);
      s += n;
      l += n;
    }
  }
  return out;
}

/**
 * The telling items' longest order-preserving match first, then each run of
 * weak items ("ok", "", "continue") only among the stored items between the
 * seqs its telling neighbours matched. The longest match of everything at
 * once can tie, and a tie can give a repeated short request an old copy while
 * the telling messages around it go unmatched; the caller weighs both.
 * `seqs` (of `stored`) ascend.
 */
export function matchTellingFirst(list: readonly string[], weak: readonly boolean[], stored: readonly string[], seqs: ArrayLike<number>): Int32Array {
  const out = new Int32Array(list.length).fill(-1);
  const telling: number[] = [];
  for (let j = 0; j < list.length; j++) if (!weak[j]) telling.push(j);
  matchInOrder(
    telling.map((j) => list[j]!),
    stored,
  ).forEach((p, k) => {
    out[telling[k]!] = p;
  });
  // The seq of the next matched telling item at or after each position (one pass, not a scan per run).
  const nextAnchor = new Float64Array(list.length + 1).fill(Number.POSITIVE_INFINITY);
  for (let k = list.length - 1; k >= 0; k--) nextAnchor[k] = out[k]! >= 0 ? seqs[out[k]!]! : nextAnchor[k + 1]!;
  let j = 0;
  let below = -1;
  while (j < list.length) {
    if (!weak[j]) {
      if (out[j]! >= 0) below = seqs[out[j]!]!;
      j++;
      continue;
    }
    const from = j;
    while (j < list.length && weak[j]) j++;
    const above = nextAnchor[j]!;
    const lo = indexAbove(seqs, below);
    const hi = indexAbove(seqs, above - 1);
    matchInOrder(list.slice(from, j), stored.slice(lo, hi)).forEach((p, k) => {
      if (p >= 0) out[from + k] = lo + p;
    });
  }
  return out;
}

/** The first index whose seq is above `seq` (binary search over ascending seqs). */
function indexAbove(seqs: ArrayLike<number>, seq: number): number {
  let lo = 0;
  let hi = seqs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (seqs[mid]! > seq) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Each list item takes the next equal stored item after the previous match (in order, not always the longest). */
function greedyInOrder(list: readonly string[], stored: readonly string[], out: Int32Array): Int32Array {
  const at = new Map<string, number[]>();
  stored.forEach((h, i) => {
    const list = at.get(h);
    if (list) list.push(i);
    else at.set(h, [i]);
  });
  let after = -1;
  list.forEach((h, i) => {
    const positions = at.get(h);
    if (!positions) return;
    const next = firstAbove(positions, after);
    if (next < 0) return;
    out[i] = next;
    after = next;
  });
  return out;
}

function firstAbove(sorted: readonly number[], floor: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! > floor) hi = mid;
    else lo = mid + 1;
  }
  return lo < sorted.length ? sorted[lo]! : -1;
}

/** A run of unmatched list positions and the stored seqs between the matches around it. */
export interface Gap {
  /** List positions [from, to). */
  from: number;
  to: number;
  /** Stored seqs strictly between these (the neighbouring matches, or -1 / the stored count). */
  afterSeq: number;
  beforeSeq: number;
}

/** The runs of unmatched list items, each with the stored range it could still match (by a looser identity). */
export function gapsOf(matchedSeq: Int32Array, storedCount: number): Gap[] {
  const gaps: Gap[] = [];
  let prevSeq = -1;
  let i = 0;
  while (i < matchedSeq.length) {
    if (matchedSeq[i]! >= 0) {
      prevSeq = matchedSeq[i]!;
      i++;
      continue;
    }
    const from = i;
    while (i < matchedSeq.length && matchedSeq[i]! < 0) i++;
    const beforeSeq = i < matchedSeq.length ? matchedSeq[i]! : storedCount;
    if (beforeSeq - prevSeq > 1) gaps.push({ from, to: i, afterSeq: prevSeq, beforeSeq });
  }
  return gaps;
}
