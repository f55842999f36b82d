import type Database from "better-sqlite3";
import { FTS_TABLES } from "./schema.js";
import { emptyWal, withoutWaiting } from "./wal.js";

/**
 * Work for the moments the store rests: once no write has come for
 * `STORE_REST_MS`, on an unref'd timer (never inside a hook or a write):
 *  1. bounded steps of merging each full-text index's segments (FTS5 `merge`,
 *     at most `MERGE_PAGES` pages written per index and step). Every write adds
 *     a small segment and the write path merges only 16 at a time (schema.ts, for
 *     cheaper writes), so the index held many part-filled segments: at 10k
 *     messages 0.05× the raw text. At rest a level is merged once it holds 4
 *     (FTS5's `usermerge`), as FTS5's own default would on every write: about
 *     2 ms CPU per rest at 10k, a merge every few turns. (Merging down to one
 *     segment instead rewrote the whole index at every rest: 17 ms CPU per turn
 *     at 10k, growing with the store.) Steps run in slices of `REST_SLICE_MS`
 *     until no level has enough segments left.
 *  2. the pages that frees (and any other free page) given back to the file
 *     system: the store is `auto_vacuum = INCREMENTAL`, so they would stay in it;
 *  3. the -wal file emptied (wal.ts).
 * A write during the pause postpones both to the next pause.
 */
export const STORE_REST_MS = 1000;
/** FTS5 pages one merge step may write per index (16 KiB each at 16 KiB database pages). */
const MERGE_PAGES = 16;
/** Longest run of rest work at once; the rest continues after as long a pause. */
const REST_SLICE_MS = 50;

/**
 * One bounded merge step per full-text index. Returns whether it wrote anything (more may be left),
 * or null when another process holds the write lock or the handle is closed.
 */
export function mergeFullTextStep(db: Database.Database): boolean | null {
  return withoutWaiting(db, () =>
    db
      .transaction(() => {
        const before = (db.prepare("SELECT total_changes() AS n").get() as { n: number }).n;
        // Positive: only levels holding `usermerge` (4) segments or more are merged.
        for (const t of FTS_TABLES) db.prepare(`INSERT INTO ${t} (${t}, rank) VALUES ('merge', ${MERGE_PAGES})`).run();
        // Each command counts one change itself; any more is a segment merged.
        return (db.prepare("SELECT total_changes() AS n").get() as { n: number }).n > before + FTS_TABLES.length;
      })
      .immediate(),
  );
}

/** Runs the rest work once writes pause: `wrote()` after each write, `stop()` on close. */
export class StoreRest {
  readonly #db: Database.Database;
  #lastWrite = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(db: Database.Database) {
    this.#db = db;
  }

  wrote(): void {
    this.#lastWrite = performance.now();
    // One timer for a burst of writes: it re-arms itself for what is left of the pause.
    if (this.#timer === undefined) this.#arm(STORE_REST_MS);
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(ms: number): void {
    this.#timer = setTimeout(() => this.#fire(), ms);
    this.#timer.unref();
  }

  #fire(): void {
    this.#timer = undefined;
    const quiet = performance.now() - this.#lastWrite;
    if (quiet < STORE_REST_MS) {
      this.#arm(STORE_REST_MS - quiet);
      return;
    }
    // Merge steps for up to REST_SLICE_MS; what is left waits for the next slice, so the event loop is never held long.
    const until = performance.now() + REST_SLICE_MS;
    let more: boolean | null = true;
    while (more && performance.now() < until) more = mergeFullTextStep(this.#db);
    withoutWaiting(this.#db, () => this.#db.pragma("incremental_vacuum"));
    emptyWal(this.#db);
    if (more) this.#arm(REST_SLICE_MS);
  }
}
