import { closeSync, openSync, readSync } from "node:fs";
import { endianness } from "node:os";
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
 *  - Between hooks, the engine settles the log (`settleWal`, engine/log-settle.ts):
 *    a passive checkpoint once its work pauses and the log holds 64 pages or more
 *    (`walFramesPending` reads that from the -shm header), so that the log is short
 *    when a hook starts and a hook's own commit does not reach the 256 pages
 *    at which SQLite checkpoints inside it. That checkpoint (copy and two
 *    fsyncs) was the wall time of the slowest compaction triggers: 10.7–18.5
 *    against 7.0 ms p95 wall with the same CPU (trigger probe at 20k, load 0.7–0.9).
 *  - While writing, nothing else changes: 256-page checkpoints as a backstop, and the file kept
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

/** Where the -shm file keeps the log's last frame (`mxFrame` of the WAL-index header) and how far it was copied (`nBackfill`). */
const SHM_MX_FRAME = 16;
const SHM_BACKFILL = 96;
const shmHead = Buffer.alloc(SHM_BACKFILL + 4);

/**
 * Frames in the log not yet copied into the database, read from the -shm file's header (sqlite.org/walformat.html,
 * "the WAL-index header"; its numbers are in the machine's byte order): no lock taken, nothing written. Null when
 * the file cannot be read (then a caller settles anyway).
 */
export function walFramesPending(dbPath: string): number | null {
  let fd: number | null = null;
  try {
    fd = openSync(`${dbPath}-shm`, "r");
    if (readSync(fd, shmHead, 0, shmHead.length, 0) < shmHead.length) return null;
    const le = endianness() === "LE";
    const mxFrame = le ? shmHead.readUInt32LE(SHM_MX_FRAME) : shmHead.readUInt32BE(SHM_MX_FRAME);
    const backfilled = le ? shmHead.readUInt32LE(SHM_BACKFILL) : shmHead.readUInt32BE(SHM_BACKFILL);
    return Math.max(0, mxFrame - backfilled);
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** Copy the log into the database (keeping its file), unless a transaction or another process is in the way. */
export function settleWal(db: Database.Database): boolean {
  const r = withoutWaiting(db, () => db.pragma("wal_checkpoint(PASSIVE)") as Array<{ busy: number; log: number; checkpointed: number }>);
  const row = r?.[0];
  return row !== undefined && row.busy === 0 && row.checkpointed === row.log;
}

/** Copy the log into the database and empty its file, unless a transaction or another process is in the way. */
export function emptyWal(db: Database.Database): boolean {
  const r = withoutWaiting(db, () => db.pragma("wal_checkpoint(TRUNCATE)") as Array<{ busy: number }>);
  return r?.[0]?.busy === 0;
}
