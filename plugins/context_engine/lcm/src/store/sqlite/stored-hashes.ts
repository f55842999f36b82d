import type Database from "better-sqlite3";

/**
 * The newest stored message of a conversation with a given identity hash, for
 * the alignment fallback (no anchor found). The stored tail that alignment
 * already read answers most lookups, since a rewritten transcript usually
 * still ends with recent messages; the first hash it does not hold reads the
 * whole conversation once, from the (conversation_id, seq, hash) index, so a
 * transcript with no overlap costs one index scan, not one per input.
 */
export class StoredHashes {
  readonly #tail = new Map<string, number>();
  #all: Map<string, number> | null = null;
  readonly #newestFirst: Database.Statement;
  readonly #conversationId: number;

  /** `newestFirst` yields { id, hash } (lower-case hex) newest first; `tail`: the newest few, already read. */
  constructor(newestFirst: Database.Statement, conversationId: number, tail: ReadonlyArray<{ id: number; hash: string }>) {
    this.#newestFirst = newestFirst;
    this.#conversationId = conversationId;
    for (const t of tail) if (!this.#tail.has(t.hash)) this.#tail.set(t.hash, t.id);
  }

  idOf(hash: string): number | null {
    const inTail = this.#tail.get(hash);
    if (inTail !== undefined) return inTail;
    if (this.#all === null) {
      this.#all = new Map();
      for (const r of this.#newestFirst.iterate(this.#conversationId) as Iterable<{ id: number; hash: string }>) {
        if (!this.#all.has(r.hash)) this.#all.set(r.hash, r.id);
      }
    }
    return this.#all.get(hash) ?? null;
  }
}
