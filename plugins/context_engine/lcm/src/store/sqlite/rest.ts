import type Database from "better-sqlite3";
import { QuietTimer } from "../quiet-timer.js";
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
  readonly #timer: QuietTimer;

  constructor(db: Database.Database) {
    this.#timer = new QuietTimer(STORE_REST_MS, () => {
      withoutWaiting(db, () => db.pragma("incremental_vacuum"));
      emptyWal(db);
    });
  }

  wrote(): void {
    this.#timer.wrote();
  }

  stop(): void {
    this.#timer.stop();
  }
}
