import { acceptMessageTime } from "@context-engine/core";
import type { PoolClient } from "pg";
import { encodeMessage } from "../codec.js";
import { abandoned, carries, nextBacklogRows, remainingOf, sliceBudget, sourceInputs, type PendingImport, type SliceLimits } from "../import-plan.js";
import type { IngestInputs } from "../ingest-inputs.js";
import type { ImportSliceResult, ImportSource, IngestOptions } from "../message-types.js";
import { PENDING_IMPORT_COLUMNS, pendingImportOf, pendingImportParams, type PendingImportRow } from "../pending-imports-sql.js";
import { INSERT_CHUNK, insertMessageRows, type IngestDeps } from "./ingest.js";

/** The conversation's pending import, or null (read on the caller's transaction, which holds the conversation row). */
export async function readPendingImportPg(c: PoolClient, conversationId: number): Promise<PendingImport | null> {
  const { rows } = await c.query<PendingImportRow>(`SELECT ${PENDING_IMPORT_COLUMNS} FROM pending_imports WHERE conversation_id = $1`, [conversationId]);
  return pendingImportOf(rows[0]);
}

export async function insertPendingImportPg(c: PoolClient, p: PendingImport): Promise<void> {
  await c.query(`INSERT INTO pending_imports (${PENDING_IMPORT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, pendingImportParams(p));
}

/** Store backlog rows from `inputs` until `budget` says stop; the state after them. */
async function storeBacklogPg(c: PoolClient, deps: IngestDeps, p: PendingImport, inputs: IngestInputs, budget: () => boolean, timestamps?: ImportSource["timestamps"]): Promise<{ stored: number; next: PendingImport | null }> {
  const { rows, next } = nextBacklogRows(inputs, p, budget);
  await writeRows(c, deps, p, rows, timestamps);
  if (next.nextSeq >= next.endSeq) {
    await c.query("DELETE FROM pending_imports WHERE conversation_id = $1", [p.conversationId]);
    return { stored: rows.length, next: null };
  }
  await c.query("UPDATE pending_imports SET next_seq = $2, next_index = $3, updated_at = $4 WHERE conversation_id = $1", [p.conversationId, next.nextSeq, next.nextIndex, Date.now()]);
  return { stored: rows.length, next };
}

/** One slice of the conversation's import from `source`, on a transaction that locks the conversation row (writers take turns). */
export async function importSlicePg(c: PoolClient, deps: IngestDeps, conversationId: number, source: ImportSource, limits: SliceLimits): Promise<ImportSliceResult | null> {
  await c.query("SELECT id FROM conversations WHERE id = $1 FOR UPDATE", [conversationId]);
  const p = await readPendingImportPg(c, conversationId);
  if (!p) return null;
  const inputs = sourceInputs(source.messages, source.isSynthetic, { encode: (m) => encodeMessage(m, deps.redactor), memo: deps.hashMemo });
  if (!carries(inputs, p)) return { remaining: remainingOf(p), carried: false, stored: 0 };
  const { stored, next } = await storeBacklogPg(c, deps, p, inputs, sliceBudget(limits), source.timestamps);
  return { remaining: remainingOf(next), carried: true, stored };
}

/** The rest of a pending import now, from a list that carries it (see the SQLite twin in sqlite/ingest.ts); else left as it is. */
export async function completeImportPg(c: PoolClient, deps: IngestDeps, p: PendingImport, inputs: IngestInputs, options: IngestOptions): Promise<void> {
  const never = () => false;
  if (carries(inputs, p)) return void (await storeBacklogPg(c, deps, p, inputs, never, options.timestamps));
  const src = options.importSource;
  const other = src ? sourceInputs(src.messages, src.isSynthetic, { encode: (m) => encodeMessage(m, deps.redactor), memo: deps.hashMemo }) : null;
  if (other && carries(other, p)) await storeBacklogPg(c, deps, p, other, never, src!.timestamps);
}

/** The PostgreSQL twin of sqlite/import.ts `abandonImport`: given up only when no process moved it for IMPORT_LEASE_MS. */
export async function abandonImportPg(c: PoolClient, p: PendingImport): Promise<number> {
  if (!abandoned(p)) return 0;
  await c.query("DELETE FROM pending_imports WHERE conversation_id = $1", [p.conversationId]);
  return remainingOf(p);
}

/** The rows in chunked statements, and in the frontier before the tail while it still starts with the tail's first message. */
async function writeRows(c: PoolClient, deps: IngestDeps, p: PendingImport, rows: ReturnType<typeof nextBacklogRows>["rows"], timestamps?: ImportSource["timestamps"]): Promise<void> {
  if (!rows.length) return;
  const anchor = await c.query<{ id: string | null }>("SELECT message_id AS id FROM frontier WHERE conversation_id = $1 AND ordinal = $2", [p.conversationId, p.endSeq + p.ordinalBase]);
  const toFrontier = anchor.rows[0]?.id != null && Number(anchor.rows[0].id) === p.anchorMessageId;
  const now = Date.now();
  let tokens = 0;
  let bytes = 0;
  for (let from = 0; from < rows.length; from += INSERT_CHUNK) {
    const chunk = rows.slice(from, from + INSERT_CHUNK).map(({ index, seq, encoded: e }) => {
      const t = deps.countTokens(e.message);
      const body = e.searchText.replace(/\u0000/g, "");
      tokens += t;
      bytes += Buffer.byteLength(body);
      return { seq, e, t, body, createdAt: acceptMessageTime(timestamps?.[index]) ?? now };
    });
    const ids = await insertMessageRows(c, p.conversationId, chunk);
    if (!toFrontier) continue;
    await c.query(
      `INSERT INTO frontier (conversation_id, ordinal, message_id, tokens) SELECT $1, s + $2, id, t FROM unnest($3::bigint[], $4::bigint[], $5::int[]) AS r(s, id, t)`,
      [p.conversationId, p.ordinalBase, chunk.map((r) => r.seq), chunk.map((r) => ids.get(r.seq)!), chunk.map((r) => r.t)],
    );
  }
  await c.query(
    `UPDATE conversations SET message_tokens = message_tokens + $2, text_bytes = text_bytes + $3, updated_at = $4,
       frontier_tokens = frontier_tokens + $5, frontier_count = frontier_count + $6, frontier_version = frontier_version + $7 WHERE id = $1`,
    [p.conversationId, tokens, bytes, now, toFrontier ? tokens : 0, toFrontier ? rows.length : 0, toFrontier ? 1 : 0],
  );
}
