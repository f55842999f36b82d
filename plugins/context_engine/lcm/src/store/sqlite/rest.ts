import type Database from "better-sqlite3";
import { emptyWal, withoutWaiting } from "./wal.js";

/**
 * Work for the moments the store rests: once no write has come for
 * `STORE_REST_MS`, on an unref'd timer (never inside a hook or a write):
 *  1. free pages given back to the file system (`incremental_vacuum`: the
 *     store is `auto_vacuum = INCREMENTAL`, so pages freed by frontier and
 *     index rewrites would otherwise stay in the file);
 *  2. the -wal file emptied (wal.ts).
 * A write during the pause postpones both to the next pause.
 *
 * Not done here: merging the full-text segments (FTS5 `merge`). It made the
 * file 0.05× the raw text smaller at 10k messages (1.96× against 2.01×), but
 * `lcm_grep` words took 60 % more CPU afterwards (p50 2.70 against 1.56–1.69
 * ms, two runs each), and merging only the CJK and summaries indexes still 2.45.
 */
export const STORE_REST_MS = 1000;

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
    withoutWaiting(this.#db, () => this.#db.pragma("incremental_vacuum"));
    emptyWal(this.#db);
  }
}
