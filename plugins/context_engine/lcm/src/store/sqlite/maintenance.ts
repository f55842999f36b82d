import { statSync } from "node:fs";
import { FLAG_CJK } from "../codec.js";
import type { PayloadRecord, StoreStats } from "../types.js";
import type { SqliteContext } from "./context.js";
import { refreshStatistics, scheduleStatistics } from "./statistics.js";
import { stmt } from "./statements.js";

/** Write-behind indexing, idle-time compaction, payload reads and stats of the SQLite store. */

/** Index messages queued by deferred ingests, oldest first, in slices of up to 2,000 rows (one short transaction each). */
export function indexPending(ctx: SqliteContext, options: { maxRows?: number; maxMs?: number }): { indexed: number; remaining: number } {
  const maxRows = options.maxRows ?? Number.MAX_SAFE_INTEGER;
  const deadline = options.maxMs === undefined ? Number.POSITIVE_INFINITY : performance.now() + options.maxMs;
  const s = ctx.s;
  if ((s.pendingCount.get() as { n: number }).n === 0) {
    ctx.backlog = false;
    return { indexed: 0, remaining: 0 };
  }
  let indexed = 0;
  // A time-bounded call works in small slices, so it ends near its deadline instead of one large slice past it.
  const sliceRows = options.maxMs === undefined ? 2000 : 64;
  while (indexed < maxRows && performance.now() < deadline) {
    const slice = Math.min(sliceRows, maxRows - indexed);
    const done = ctx.db
      .transaction(() => {
        const rows = s.pendingSlice.all(slice) as Array<{ id: number; body: string; ctag: string; flags: number }>;
        for (const r of rows) {
          s.insertFts.run(r.id, r.body, r.ctag);
          if (r.flags & FLAG_CJK) s.insertCjk.run(r.id, r.body);
          s.deletePending.run(r.id);
        }
        return rows.length;
      })
      .immediate();
    indexed += done;
    if (done < slice) break;
  }
  const remaining = (s.pendingCount.get() as { n: number }).n;
  if (remaining === 0) ctx.backlog = false;
  // A bulk import has just become searchable: the planner's statistics are written after this call returns.
  if (remaining === 0 && indexed > 0) scheduleStatistics(ctx.db);
  return { indexed, remaining };
}

/**
 * Maintenance for idle time: merge the full-text index segments, write the
 * planner's statistics, give free pages back to the file system and
 * checkpoint the WAL. Seconds on a large
 * database; never needed for correctness.
 */
export function compact(ctx: SqliteContext, path: string): { fileBytes: number } {
  indexPending(ctx, {});
  for (const t of ["messages_fts", "messages_cjk", "summaries_fts"]) ctx.db.exec(`INSERT INTO ${t} (${t}) VALUES ('optimize')`);
  refreshStatistics(ctx.db, { force: true });
  ctx.db.pragma("incremental_vacuum");
  ctx.db.pragma("wal_checkpoint(TRUNCATE)");
  return { fileBytes: fileBytes(path) };
}

export function getPayload(ctx: SqliteContext, hash: string): PayloadRecord | null {
  const r = ctx.s.payload.get(hash) as { hash: string; bytes: number; mime: string | null; is_text: number; data: Buffer | string } | undefined;
  if (!r) return null;
  const data = typeof r.data === "string" ? Buffer.from(r.data, "utf8") : r.data;
  return { hash: r.hash, bytes: r.bytes, mime: r.mime, text: r.is_text ? data.toString("utf8") : null, data };
}

function fileBytes(path: string): number {
  if (path === ":memory:") return 0;
  let total = 0;
  for (const suffix of ["", "-wal"]) {
    try {
      total += statSync(path + suffix).size;
    } catch {
      // no WAL file yet
    }
  }
  return total;
}

export function stats(ctx: SqliteContext, path: string, schemaVersion: number): StoreStats {
  const c = (sql: string) => (stmt(ctx.db, sql).get() as { n: number }).n;
  return {
    path,
    schemaVersion,
    conversations: c("SELECT count(*) AS n FROM conversations"),
    messages: c("SELECT count(*) AS n FROM messages"),
    summaries: c("SELECT count(*) AS n FROM summaries"),
    payloads: c("SELECT count(*) AS n FROM payloads"),
    pendingIndex: c("SELECT count(*) AS n FROM fts_pending"),
    fileBytes: fileBytes(path),
  };
}
