import type { Pool } from "pg";
import { QuietTimer } from "../quiet-timer.js";

/**
 * Dead rows given back when the store rests. Four small tables are rewritten in place all the time: the frontier
 * (deleted and inserted again by every compaction), the writer positions (one insert and one delete per turn), the
 * conversation counters (updated by every write) and the drain claims. Each update or delete leaves a dead row,
 * and only VACUUM makes its room usable again; with autovacuum off (as on the machine `pnpm bench` runs on) nothing
 * does. At 10k messages in `pnpm bench` these tables held 1.6 MiB (0.35× the raw text) for 297 live rows: 9,795
 * dead frontier rows and 5,525 dead writer positions.
 *
 * Once no write has come for `PG_STORE_REST_MS` (on an unref'd timer, never inside a hook or a write), and in
 * `compact()`:
 *  1. `VACUUM` of the four tables: their free room is reused by the next writes, so the files stop growing;
 *  2. `VACUUM FULL` of one of them when, after 1, its file is more than twice the room its live rows need
 *     (`ROW_ROOM` bytes each) and it holds at most `FULL_MAX_ROWS` rows: a burst of writes with no rest between
 *     (a bulk import, the bench) leaves a file that reused room alone would never shrink. The rewrite holds an
 *     exclusive lock on the table for as long as it copies the live rows (a few milliseconds at that bound).
 * Both use SKIP_LOCKED: a table another session holds a conflicting lock on is left for the next rest, so nothing
 * ever waits here or makes another session wait behind a queued lock.
 * Not done: the message and summary tables (insert-only: no dead rows unless a conversation is deleted).
 */
export const PG_STORE_REST_MS = 1000;

export const CHURNED_TABLES = ["frontier", "writer_positions", "conversations", "drain_claims"] as const;

/** Room a live row of the churned tables is given before the file counts as mostly empty (header, pointer, columns). */
const ROW_ROOM = 100;
/** Above this many live rows a table is only vacuumed, never rewritten (the exclusive lock stays short). */
const FULL_MAX_ROWS = 10_000;
const PAGE = 8192;

/** The rest work once; the names of the tables rewritten by VACUUM FULL. */
export async function reclaimDeadRows(pool: Pool, schema: string): Promise<string[]> {
  const tables = CHURNED_TABLES.map((t) => `${schema}.${t}`);
  await pool.query(`VACUUM (SKIP_LOCKED) ${tables.join(", ")}`);
  // VACUUM has just set reltuples (live rows); -1 (never counted: a table it skipped) is never rewritten.
  const { rows } = await pool.query<{ name: string; live: number; pages: number }>(
    `SELECT c.relname AS name, c.reltuples::float8 AS live, (pg_relation_size(c.oid) / ${PAGE})::float8 AS pages
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = ANY($2::text[])`,
    [schema, [...CHURNED_TABLES]],
  );
  const rewrite = rows.filter((r) => r.live >= 0 && r.live <= FULL_MAX_ROWS && r.pages > 1 && r.pages > 2 * Math.ceil((r.live * ROW_ROOM) / PAGE));
  if (rewrite.length) await pool.query(`VACUUM (FULL, SKIP_LOCKED) ${rewrite.map((r) => `${schema}.${r.name}`).join(", ")}`);
  return rewrite.map((r) => r.name);
}

/** Runs `reclaimDeadRows` once writes pause: `wrote()` after each write, `stop()` (awaited) on close. */
export class PgStoreRest {
  readonly #pool: Pool;
  readonly #schema: string;
  readonly #timer: QuietTimer;
  #running: Promise<unknown> | null = null;

  constructor(pool: Pool, schema: string) {
    this.#pool = pool;
    this.#schema = schema;
    this.#timer = new QuietTimer(PG_STORE_REST_MS, () => {
      if (this.#running === null) void this.#run();
    });
  }

  wrote(): void {
    this.#timer.wrote();
  }

  /** The rest work now (`compact()`), after any run in progress. */
  async now(): Promise<void> {
    await this.#running;
    await this.#run();
  }

  async stop(): Promise<void> {
    this.#timer.stop();
    await this.#running;
  }

  #run(): Promise<void> {
    const run = reclaimDeadRows(this.#pool, this.#schema)
      .then(() => undefined)
      // A failure (server gone, a timeout) costs nothing but the room: the next rest tries again.
      .catch(() => undefined)
      .finally(() => {
        if (this.#running === run) this.#running = null;
      });
    this.#running = run;
    return run;
  }
}
