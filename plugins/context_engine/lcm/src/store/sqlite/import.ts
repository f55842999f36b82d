import { acceptMessageTime } from "@context-engine/core";
import { encodeMessage } from "../codec.js";
import { abandoned, carries, nextBacklogRows, remainingOf, sliceBudget, sourceInputs, type BacklogRow, type PendingImport, type SliceLimits } from "../import-plan.js";
import type { IngestInputs } from "../ingest-inputs.js";
import type { ImportSliceResult, ImportSource } from "../message-types.js";
import { PENDING_IMPORT_COLUMNS, pendingImportOf, pendingImportParams, type PendingImportRow } from "../pending-imports-sql.js";
import type { SqliteContext } from "./context.js";
import { insertMessage } from "./ingest.js";
import { stmt } from "./statements.js";

/** The conversation's pending import, or null. */
export function readPendingImport(ctx: SqliteContext, conversationId: number): PendingImport | null {
  return pendingImportOf(stmt(ctx.db, `SELECT ${PENDING_IMPORT_COLUMNS} FROM pending_imports WHERE conversation_id = ?`).get(conversationId) as PendingImportRow | undefined);
}

export function insertPendingImport(ctx: SqliteContext, p: PendingImport): void {
  stmt(ctx.db, `INSERT INTO pending_imports (${PENDING_IMPORT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(...pendingImportParams(p));
}

/** Store backlog rows from `inputs` until `budget` says stop, inside the caller's transaction; the state after them. */
export function storeBacklog(ctx: SqliteContext, p: PendingImport, inputs: IngestInputs, budget: () => boolean, timestamps?: ImportSource["timestamps"]): { stored: number; next: PendingImport | null } {
  const { rows, next } = nextBacklogRows(inputs, p, budget);
  writeRows(ctx, p, rows, timestamps);
  if (next.nextSeq >= next.endSeq) {
    stmt(ctx.db, "DELETE FROM pending_imports WHERE conversation_id = ?").run(p.conversationId);
    return { stored: rows.length, next: null };
  }
  stmt(ctx.db, "UPDATE pending_imports SET next_seq = ?, next_index = ?, updated_at = ? WHERE conversation_id = ?").run(next.nextSeq, next.nextIndex, Date.now(), p.conversationId);
  return { stored: rows.length, next };
}

/** One slice of the conversation's import from `source` (its own transaction, opened by the caller). */
export function importSliceRows(ctx: SqliteContext, conversationId: number, source: ImportSource, limits: SliceLimits): ImportSliceResult | null {
  const p = readPendingImport(ctx, conversationId);
  if (!p) return null;
  const inputs = sourceInputs(source.messages, source.isSynthetic, { encode: (m) => encodeMessage(m, ctx.redactor), memo: ctx.hashMemo });
  if (!carries(inputs, p)) return { remaining: remainingOf(p), carried: false, stored: 0 };
  const { stored, next } = storeBacklog(ctx, p, inputs, sliceBudget(limits), source.timestamps);
  return { remaining: remainingOf(next), carried: true, stored };
}

/**
 * Give an import up when no list at hand carries its backlog and no process moved it for IMPORT_LEASE_MS
 * (its reserved seqs stay unused); returns how many messages that was, 0 when it is left to its process.
 */
export function abandonImport(ctx: SqliteContext, p: PendingImport): number {
  if (!abandoned(p)) return 0;
  stmt(ctx.db, "DELETE FROM pending_imports WHERE conversation_id = ?").run(p.conversationId);
  return remainingOf(p);
}

/**
 * The rows, their parts and payloads, queued for full-text indexing (the index drain catches up), and in the
 * frontier before the tail while it still starts with the tail's first message (a reset or a compaction by
 * another process since leaves them out of the active context, as any older message).
 */
function writeRows(ctx: SqliteContext, p: PendingImport, rows: readonly BacklogRow[], timestamps?: ImportSource["timestamps"]): void {
  if (!rows.length) return;
  const anchor = stmt(ctx.db, "SELECT message_id AS id FROM frontier WHERE conversation_id = ? AND ordinal = ?").get(p.conversationId, p.endSeq + p.ordinalBase) as { id: number | null } | undefined;
  const toFrontier = anchor?.id === p.anchorMessageId;
  const now = Date.now();
  let tokens = 0;
  let bytes = 0;
  for (const { index, seq, encoded } of rows) {
    const t = ctx.countTokens(encoded.message);
    const { id, textBytes } = insertMessage(ctx, p.conversationId, seq, encoded, t, acceptMessageTime(timestamps?.[index]) ?? now);
    ctx.s.insertPending.run(id);
    if (toFrontier) ctx.s.insertFrontier.run(p.conversationId, seq + p.ordinalBase, id, null, t);
    tokens += t;
    bytes += encoded.searchText === encoded.text ? textBytes : Buffer.byteLength(encoded.searchText);
  }
  ctx.backlog = true;
  const n = rows.length;
  ctx.s.bumpConvAfterIngest.run(0, tokens, bytes, now, toFrontier ? tokens : 0, toFrontier ? n : 0, toFrontier ? 1 : 0, p.conversationId);
}
