import type Database from "better-sqlite3";

/**
 * The write-ahead log emptied when the store rests. SQLite copies the log into
 * the database once it holds `wal_autocheckpoint` pages (256, 4 MiB at 16 KiB
 * pages) and then writes it again from its head, but keeps the file: with a
 * 4 MiB `journal_size_limit` the -wal file stayed at 4 MiB for as long as the
 * store was open, 0.9× the raw text of a 10k-message store (as much as its
 * whole full-text index), while the main file was 2.07×.
 *  - When the store rests (rest.ts), one `wal_checkpoint(TRUNCATE)` copies
 *    what is left and empties the file (a store at rest has no log). It never
 *    waits for another process: a reader in the log makes it give up until the
 *    next rest.
 *  - While writing, nothing changes: 256-page checkpoints, and the file kept
 *    up to 4 MiB so that writes overwrite it instead of growing it. Both were
 *    tried smaller: checkpointing at a 32nd of the database made a 10k store
 *    checkpoint on most turns, two fsyncs each (`onTurnComplete` p50 0.54 →
 *    7.75 ms wall); `journal_size_limit = 0` (the file cut at every restart)
 *    left the -wal at 4.0 MiB at the bench's measuring point all the same.
 */

/** Settings of a newly opened handle. */
export function openWal(db: Database.Database): void {
  db.pragma("wal_autocheckpoint = 256");
  db.pragma("journal_size_limit = 4194304");
}

/** `fn` with the busy timeout at 0 (a lock held by another process fails at once instead of blocking the event loop); null on failure. */
export function withoutWaiting<T>(db: Database.Database, fn: () => T): T | null {
  if (!db.open || db.inTransaction) return null;
  const timeout = db.pragma("busy_timeout", { simple: true }) as number;
  try {
    db.pragma("busy_timeout = 0");
    return fn();
  } catch {
    // busy, or closed meanwhile: the next rest tries again
    return null;
  } finally {
    if (db.open) db.pragma(`busy_timeout = ${Math.trunc(timeout)}`);
  }
}

/** Copy the log into the database and empty its file, unless a transaction or another process is in the way. */
export function emptyWal(db: Database.Database): boolean {
  const r = withoutWaiting(db, () => db.pragma("wal_checkpoint(TRUNCATE)") as Array<{ busy: number }>);
  return r?.[0]?.busy === 0;
}
