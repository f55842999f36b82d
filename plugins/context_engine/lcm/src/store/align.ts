/**
 * Where does the stored history end inside a host transcript? Pure logic,
 * separated from SQL so it can be tested exhaustively.
 *
 * `inputHash(i)` hashes input i lazily (null for synthetic messages);
 * `storedHash(k)` is the hash of the k-th newest stored message (k = 0 is the
 * last one) or null past the start. The anchor is an input position equal to
 * the last stored message whose preceding non-synthetic inputs match the
 * stored messages backwards.
 *
 * A run that matches back to a boundary (the start of the list, a synthetic
 * message, a system/developer message) or for `mapLimit` messages is
 * conclusive: the latest such position wins. A run that ends on a mismatch
 * after `minRun` messages (a host that rewrote older messages) is accepted
 * only when no conclusive one exists within `mapLimit` positions before it.
 * That is what keeps repeated messages apart: a transcript ending in a second
 * "continue" (or a third identical tool round) also matches the stored tail
 * one period later, but that run breaks where the repetition started, while the
 * true anchor's run does not.
 */
export interface AlignInput {
  length: number;
  storedCount: number;
  inputHash(i: number): string | null;
  storedHash(k: number): string | null;
  isBoundaryRole(i: number): boolean;
  minRun?: number;
  /** How far back to keep matching after the anchor is accepted, to map ids (and to confirm the anchor). */
  mapLimit?: number;
}

export interface AlignOutput {
  /** Input index of the anchor (last already-stored message), or -1. */
  anchor: number;
  /** Input index -> k (k-th newest stored) for the matched run. */
  matched: Map<number, number>;
}

interface Run {
  matched: Map<number, number>;
  /** Ended at a boundary or the map limit (conclusive), or on a mismatch. */
  conclusive: boolean;
}

/** Match inputs backwards from `p` (equal to the last stored message) against the stored history. */
function runFrom(input: AlignInput, p: number, mapLimit: number): Run {
  const matched = new Map<number, number>([[p, 0]]);
  let i = p;
  let k = 0;
  for (;;) {
    if (matched.size >= mapLimit) return { matched, conclusive: true };
    const prev = i - 1;
    if (prev < 0) return { matched, conclusive: true };
    const ph = input.inputHash(prev);
    if (ph === null) return { matched, conclusive: true }; // a synthetic message: the engine compacted what came before
    // Past the first stored message while the input goes on: a mismatch, unless at a boundary role.
    const sh = k + 1 < input.storedCount ? input.storedHash(k + 1) : null;
    if (sh === null || ph !== sh) return { matched, conclusive: input.isBoundaryRole(prev) };
    i = prev;
    k++;
    matched.set(i, k);
  }
}

export function alignTranscript(input: AlignInput): AlignOutput {
  const minRun = Math.min(input.minRun ?? 3, input.storedCount);
  const mapLimit = input.mapLimit ?? 512;
  const last = input.storedCount > 0 ? input.storedHash(0) : null;
  if (last === null) return { anchor: -1, matched: new Map() };
  let weak: { anchor: number; matched: Map<number, number> } | null = null;
  for (let p = input.length - 1; p >= 0; p--) {
    if (weak && weak.anchor - p > mapLimit) break;
    const h = input.inputHash(p);
    if (h === null || h !== last) continue;
    const run = runFrom(input, p, mapLimit);
    if (run.conclusive) return { anchor: p, matched: run.matched };
    if (!weak && run.matched.size >= minRun) weak = { anchor: p, matched: run.matched };
  }
  return weak ?? { anchor: -1, matched: new Map() };
}
