/**
 * Where does the stored history end inside a host transcript? Pure logic,
 * separated from SQL so it can be tested exhaustively.
 *
 * `inputHash(i)` hashes input i lazily (null for synthetic messages);
 * `storedHash(k)` is the hash of the k-th newest stored message (k = 0 is the
 * last one) or null past the start. The anchor is the latest input position
 * equal to the last stored message whose preceding non-synthetic inputs match
 * the stored messages backwards for `minRun` messages, or until a boundary: the
 * start of the list, a synthetic message, or a system/developer message.
 */
export interface AlignInput {
  length: number;
  storedCount: number;
  inputHash(i: number): string | null;
  storedHash(k: number): string | null;
  isBoundaryRole(i: number): boolean;
  minRun?: number;
  /** How far back to keep matching after the anchor is accepted, to map ids. */
  mapLimit?: number;
}

export interface AlignOutput {
  /** Input index of the anchor (last already-stored message), or -1. */
  anchor: number;
  /** Input index -> k (k-th newest stored) for the matched run. */
  matched: Map<number, number>;
}

export function alignTranscript(input: AlignInput): AlignOutput {
  const minRun = Math.min(input.minRun ?? 3, input.storedCount);
  const mapLimit = input.mapLimit ?? 512;
  const last = input.storedHash(0);
  if (last === null) return { anchor: -1, matched: new Map() };
  for (let p = input.length - 1; p >= 0; p--) {
    const h = input.inputHash(p);
    if (h === null || h !== last) continue;
    const matched = new Map<number, number>([[p, 0]]);
    let ok = false;
    let i = p;
    let k = 0;
    for (;;) {
      if (matched.size >= minRun) ok = true;
      if (ok && matched.size >= mapLimit) break;
      const prev = i - 1;
      if (prev < 0) {
        ok = true;
        break;
      }
      const ph = input.inputHash(prev);
      if (ph === null) {
        ok = true; // a synthetic message: the engine compacted what came before
        break;
      }
      const sh = input.storedHash(k + 1);
      if (sh === null || ph !== sh) {
        if (input.isBoundaryRole(prev)) ok = true;
        break;
      }
      i = prev;
      k++;
      matched.set(i, k);
    }
    if (ok) return { anchor: p, matched };
  }
  return { anchor: -1, matched: new Map() };
}
