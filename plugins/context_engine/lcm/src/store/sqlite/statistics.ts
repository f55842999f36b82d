import type Database from "better-sqlite3";
import { stmt } from "./statements.js";

/**
 * SQLite's planner statistics (`sqlite_stat1`) kept current while a store is
 * open. SQLite writes them only on request; without them a store built by
 * this process (or grown tenfold since they were written) plans some
 * statements badly: the regex literal scan walked a whole conversation through
 * the (conversation_id, seq) index for every 2,000-id window instead of the
 * id range. `ANALYZE` with an analysis limit samples each index instead of
 * reading it (about 30 ms at a million messages once the pages are cached),
 * and is only needed when the tables have changed size by a factor.
 */

/** Rows sampled per index: enough for the planner's choices here, cheap at any size. */
const ANALYSIS_LIMIT = 1_000;
/** Below this many messages every plan is fast; no statistics are written for a small store. */
const MIN_ROWS = 500;
/** Statistics are rewritten when the message count has changed by this factor since they were written. */
const GROWTH = 2;

/** Message count the statistics of each handle describe (0: none written). */
const described = new WeakMap<Database.Database, number>();
/** Handles with a refresh already scheduled. */
const scheduled = new WeakSet<Database.Database>();

function messageRows(db: Database.Database): number {
  // Ids only grow: the largest is the number of messages ever stored (deletions make it an over-estimate).
  const r = stmt(db, "SELECT COALESCE(max(rowid), 0) AS n FROM messages").get() as { n: number };
  return r.n;
}

/** The message count recorded in `sqlite_stat1` (0 when there is none). */
function recordedRows(db: Database.Database): number {
  const hasTable = stmt(db, "SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'").get();
  if (!hasTable) return 0;
  const r = db.prepare("SELECT stat FROM sqlite_stat1 WHERE tbl = 'messages' AND stat IS NOT NULL LIMIT 1").get() as { stat: string } | undefined;
  return r ? Number.parseInt(r.stat, 10) || 0 : 0;
}

/** Whether the planner's statistics no longer describe the messages table (cheap: two indexed reads). */
export function statisticsStale(db: Database.Database): boolean {
  if (!db.open) return false;
  const rows = messageRows(db);
  if (rows < MIN_ROWS) return false;
  let known = described.get(db);
  if (known === undefined) {
    known = recordedRows(db);
    described.set(db, known);
  }
  return known === 0 || rows >= known * GROWTH || rows * GROWTH <= known;
}

/**
 * Write fresh statistics now when they are stale. Never waits for another
 * process's write lock (it tries again on a later call). Returns whether it
 * wrote them.
 */
export function refreshStatistics(db: Database.Database, options: { force?: boolean } = {}): boolean {
  if (!db.open || db.inTransaction) return false;
  if (!options.force && !statisticsStale(db)) return false;
  let timeout: number | null = null;
  try {
    timeout = db.pragma("busy_timeout", { simple: true }) as number;
    db.pragma("busy_timeout = 0");
    db.pragma(`analysis_limit = ${ANALYSIS_LIMIT}`);
    db.exec("ANALYZE");
    described.set(db, Math.max(1, recordedRows(db) || messageRows(db)));
    return true;
  } catch {
    // Busy (another process writes, or a statement of this handle is still open) or read-only:
    // the statistics are advisory; a later call tries again.
    return false;
  } finally {
    if (timeout !== null) {
      try {
        db.pragma(`busy_timeout = ${Math.trunc(timeout)}`);
      } catch {
        // the handle was closed meanwhile
      }
    }
  }
}

/**
 * Refresh stale statistics after the current call returns (never on a hook's
 * own path): the check is two indexed reads; the work runs once per doubling
 * or halving of the stored messages.
 */
export function scheduleStatistics(db: Database.Database): void {
  if (scheduled.has(db) || !statisticsStale(db)) return;
  scheduled.add(db);
  setImmediate(() => {
    scheduled.delete(db);
    refreshStatistics(db);
  }).unref();
}
