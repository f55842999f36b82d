import type { HashMemo } from "../hash-memo.js";
import type { Message } from "@context-engine/core";
import type { PoolClient } from "pg";
import type { Redactor } from "../../redact/types.js";
import { encodeMessage, type EncodedMessage } from "../codec.js";
import { acceptMessageTime } from "@context-engine/core";
import { IngestInputs } from "../ingest-inputs.js";
import { carriedBy, importReport, newPendingImport } from "../import-plan.js";
import { abandonImportPg, completeImportPg, insertPendingImportPg, readPendingImportPg } from "./import.js";
import { restoreMessage, storedMessageJson } from "./layout.js";
import { ingestResult, planIngest, RECORDED_POSITIONS, runPlan, type IngestNeed, type IngestPlan, type StoredRef } from "../ingest-plan.js";
import type { FrontierAppend, FrontierItem, IngestOptions, IngestResult } from "../types.js";

export interface IngestDeps {
  redactor: Redactor;
  /** Identity hashes of the messages writer positions were fingerprinted on (see hash-memo.ts). */
  hashMemo?: HashMemo;
  countTokens: (m: Message) => number;
}

/**
 * Ingest. The conversation row is locked for the transaction, so concurrent
 * writers of one conversation (other processes, other machines) take turns:
 * the second one sees what the first stored (its keys, its messages). The
 * plan (ingest-plan.ts) decides; this answers its reads with queries and
 * writes the rows.
 */
export async function ingestPg(
  c: PoolClient,
  deps: IngestDeps,
  conversationId: number,
  messages: readonly Message[],
  options: IngestOptions,
): Promise<IngestResult> {
  const conv = (await c.query("SELECT * FROM conversations WHERE id = $1 FOR UPDATE", [conversationId])).rows[0];
  if (!conv) throw new Error(`no conversation ${conversationId}`);
  const count = Number(conv.message_count);
  const encoder = { encode: (m: Message) => encodeMessage(m, deps.redactor), memo: deps.hashMemo };
  const inputs = new IngestInputs(messages, options.isSynthetic, encoder);
  let pending = await readPendingImportPg(c, conversationId);
  let abandoned = 0;
  // An import nobody can finish (no list at hand shows its history, no progress for IMPORT_LEASE_MS) is given up.
  const giveUpIfStuck = async () => {
    if (!pending || carriedBy(inputs, pending, options.importSource, encoder)) return;
    abandoned = await abandonImportPg(c, pending);
    if (abandoned > 0) pending = null;
  };
  const plan = await runPlan(planIngest(inputs, options, count, pending !== null), async (need) => {
    if (need.kind !== "complete-import") return answer(c, deps, conversationId, need);
    await completeImportPg(c, deps, pending!, inputs, options);
    // Finished, or left to the process at work on it (reconciled with what is stored meanwhile, the list's
    // messages before the tail held back), or given up first when nobody can finish it (then nothing is held).
    pending = await readPendingImportPg(c, conversationId);
    await giveUpIfStuck();
    return pending ? { tailSeq: pending.endSeq } : null;
  });
  const result = await writePlan(c, deps, conversationId, count, plan, options, messages.length);
  await giveUpIfStuck();
  return Object.assign(result, importReport(plan.deferred, pending, abandoned, inputs));
}

/** What the plan asks of the stored history, read on the transaction's client. */
async function answer(c: PoolClient, deps: IngestDeps, conversationId: number, need: IngestNeed): Promise<unknown> {
  if (need.kind === "keys") {
    const { rows } = await c.query<{ key: string; id: string | null }>(
      "SELECT key, message_id AS id FROM ingest_keys WHERE conversation_id = $1 AND key = ANY($2::text[])",
      [conversationId, need.keys],
    );
    return new Map(rows.map((r) => [r.key, r.id === null ? null : Number(r.id)]));
  }
  if (need.kind === "positions") {
    const { rows } = await c.query<{ index: number; fingerprint: string }>(
      `SELECT list_index AS "index", fingerprint FROM writer_positions WHERE conversation_id = $1 ORDER BY id DESC LIMIT $2`,
      [conversationId, need.limit],
    );
    return rows;
  }
  if (need.kind === "atSeq") {
    const { rows } = await c.query<{ id: string; seq: number; hash: string }>("SELECT id, seq, hash FROM messages WHERE conversation_id = $1 AND seq = $2", [conversationId, need.seq]);
    return rows[0] ? ({ id: Number(rows[0].id), seq: rows[0].seq, hash: rows[0].hash } satisfies StoredRef) : null;
  }
  if (need.kind === "hashes") {
    const { rows } = await c.query<{ id: string; seq: number; hash: string }>(
      "SELECT id, seq, hash FROM messages WHERE conversation_id = $1 AND hash = ANY($2::text[]) ORDER BY seq",
      [conversationId, [...need.hashes]],
    );
    return rows.map((r): StoredRef => ({ id: Number(r.id), seq: r.seq, hash: r.hash }));
  }
  if (need.kind !== "loose") throw new Error(`ingest: unexpected need ${need.kind}`);
  const { rows } = await c.query<{ id: string; seq: number; message: string; body: string; role: string; tool_call_id: string | null }>(
    "SELECT id, seq, message::text AS message, body, role, tool_call_id FROM messages WHERE conversation_id = $1 AND seq > $2 AND seq < $3 ORDER BY seq LIMIT $4",
    [conversationId, need.afterSeq, need.beforeSeq, need.limit],
  );
  return rows.map((r): StoredRef => ({ id: Number(r.id), seq: r.seq, hash: encodeMessage(restoreMessage(JSON.parse(r.message), { body: r.body, role: r.role, toolCallId: r.tool_call_id }), deps.redactor).looseHex }));
}

/** Rows per INSERT: one round trip per chunk instead of one per message (a bulk import stays in bounded statements). */
export const INSERT_CHUNK = 500;

async function writePlan(c: PoolClient, deps: IngestDeps, conversationId: number, count: number, plan: IngestPlan, options: IngestOptions, inputCount: number): Promise<IngestResult> {
  const now = options.now ?? Date.now();
  const toFrontier = options.appendToFrontier ?? true;
  const newIds: number[] = [];
  // A deferred backlog takes the seqs before the tail (stored later by import slices).
  const reserved = plan.deferred?.reserved ?? 0;
  let tokens = 0;
  let bytes = 0;
  const tokenCounts: number[] = [];
  for (let from = 0; from < plan.append.length; from += INSERT_CHUNK) {
    const rows = plan.append.slice(from, from + INSERT_CHUNK).map(({ index, encoded: e }, j) => {
      const t = deps.countTokens(e.message);
      tokenCounts.push(t);
      // PostgreSQL text cannot hold NUL; the message itself keeps it (escaped in json).
      const body = e.searchText.replace(/\u0000/g, "");
      tokens += t;
      bytes += Buffer.byteLength(body);
      return { seq: count + reserved + from + j, e, t, body, createdAt: acceptMessageTime(options.timestamps?.[index]) ?? now };
    });
    const idBySeq = await insertMessageRows(c, conversationId, rows);
    for (const r of rows) newIds.push(idBySeq.get(r.seq)!);
  }
  const appended = newIds.length;
  let frontierAppend: FrontierAppend | undefined;
  if (appended > 0 && toFrontier) {
    // The new messages join the frontier in seq order, in one statement; it answers where they start and the
    // counters before (the row is locked by this transaction), so the session need not read them back.
    const { rows } = await c.query<{ first: number; version: string; tokens: string; count: string }>(
      `WITH added AS (INSERT INTO frontier (conversation_id, ordinal, message_id, tokens)
         SELECT $1, (SELECT COALESCE(max(ordinal), -1) + 1 FROM frontier WHERE conversation_id = $1) + (m.seq - $2), m.id, m.tokens
         FROM messages m WHERE m.conversation_id = $1 AND m.seq >= $2 RETURNING ordinal)
       SELECT (SELECT min(ordinal) FROM added) AS first, frontier_version AS version, frontier_tokens AS tokens, frontier_count AS count
       FROM conversations WHERE id = $1`,
      [conversationId, count],
    );
    const row = rows[0]!;
    if (!plan.deferred) frontierAppend = appendedItems(row, plan, newIds, tokenCounts);
  }
  await recordKeys(c, conversationId, plan, newIds, now);
  if (plan.deferred && appended > 0) {
    const { rows } = await c.query<{ m: string | null }>("SELECT max(ordinal) AS m FROM frontier WHERE conversation_id = $1", [conversationId]);
    const maxOrdinal = Number(rows[0]?.m ?? 0);
    await insertPendingImportPg(c, newPendingImport(conversationId, { storedCount: count, reserved, appended, maxOrdinal, tailFirstId: newIds[0]! }, plan.deferred));
  }
  if (appended > 0) {
    await c.query(
      `UPDATE conversations SET message_count = message_count + $2, last_seq = $3, message_tokens = message_tokens + $4, text_bytes = text_bytes + $5,
         updated_at = $6, frontier_tokens = frontier_tokens + $7, frontier_count = frontier_count + $8, frontier_version = frontier_version + $9 WHERE id = $1`,
      [conversationId, appended + reserved, count + reserved + appended - 1, tokens, bytes, Date.now(), toFrontier ? tokens : 0, toFrontier ? appended : 0, toFrontier ? 1 : 0],
    );
  }
  const result = ingestResult(conversationId, plan, newIds, count + reserved, inputCount);
  return frontierAppend ? Object.assign(result, { frontierAppend }) : result;
}

/** The frontier items just appended (ordinals from the first the insert gave), with their shapes as the planner's read gives them. */
function appendedItems(row: { first: number; version: string; tokens: string; count: string }, plan: IngestPlan, newIds: readonly number[], tokens: readonly number[]): FrontierAppend {
  const first = Number(row.first);
  const items: FrontierItem[] = plan.append.map(({ encoded: e }, j) => ({
    kind: "message",
    messageId: newIds[j]!,
    ordinal: first + j,
    tokens: tokens[j]!,
    shape: { role: e.role, toolCallIds: [...e.toolCallIds], toolCallId: e.toolCallId },
  }));
  return { before: { version: Number(row.version), tokens: Number(row.tokens), count: Number(row.count) }, items };
}

/** One message row to insert: its seq, encoding, tokens, search body (no NUL) and time. */
export interface MessageRowInput {
  seq: number;
  e: EncodedMessage;
  t: number;
  body: string;
  createdAt: number;
}

/** Insert message rows in one statement; their ids by seq. */
export async function insertMessageRows(c: PoolClient, conversationId: number, rows: readonly MessageRowInput[]): Promise<Map<number, number>> {
  const { rows: inserted } = await c.query<{ id: string; seq: number }>(
    `INSERT INTO messages (conversation_id, seq, role, message, body, tokens, created_at, hash, tool_call_ids, tool_call_id, redacted)
     SELECT $1, r.seq, r.role, r.message::json, r.body, r.tokens, r.created_at, r.hash, ARRAY(SELECT json_array_elements_text(r.calls::json)), r.tool_call_id, r.redacted
     FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::int[], $7::bigint[], $8::text[], $9::text[], $10::text[], $11::bool[])
       AS r(seq, role, message, body, tokens, created_at, hash, calls, tool_call_id, redacted)
     ORDER BY r.seq RETURNING id, seq`,
    [
      conversationId,
      rows.map((r) => r.seq),
      rows.map((r) => r.e.role),
      rows.map((r) => storedMessageJson(r.e.message, r.body)),
      rows.map((r) => r.body),
      rows.map((r) => r.t),
      rows.map((r) => r.createdAt),
      rows.map((r) => r.e.hashHex),
      rows.map((r) => JSON.stringify(r.e.toolCallIds)),
      rows.map((r) => r.e.toolCallId),
      rows.map((r) => r.e.redacted),
    ],
  );
  return new Map(inserted.map((r) => [Number(r.seq), Number(r.id)]));
}

/** Where the writer stands now; the turn key (with the last message it stored) and the message keys of what was appended, in one statement. */
async function recordKeys(c: PoolClient, conversationId: number, plan: IngestPlan, newIds: readonly number[], now: number): Promise<void> {
  if (plan.position && !plan.positionRecorded) {
    await c.query("INSERT INTO writer_positions (conversation_id, list_index, fingerprint) VALUES ($1, $2, $3)", [conversationId, plan.position.index, plan.position.fingerprint]);
    await c.query(
      `DELETE FROM writer_positions WHERE conversation_id = $1 AND id <= (SELECT id FROM writer_positions WHERE conversation_id = $1 ORDER BY id DESC LIMIT 1 OFFSET $2)`,
      [conversationId, RECORDED_POSITIONS],
    );
  }
  const keys: string[] = [];
  const ids: Array<number | null> = [];
  if (plan.newTurnKey !== null) {
    keys.push(plan.newTurnKey);
    ids.push(newIds.at(-1) ?? null);
  }
  plan.append.forEach(({ index }, j) => {
    const key = plan.newMessageKeys.get(index);
    if (key === undefined) return;
    keys.push(key);
    ids.push(newIds[j]!);
  });
  if (!keys.length) return;
  await c.query(
    `INSERT INTO ingest_keys (conversation_id, key, message_id, created_at)
     SELECT $1, k.key, k.id, $4 FROM unnest($2::text[], $3::bigint[]) AS k(key, id) ON CONFLICT DO NOTHING`,
    [conversationId, keys, ids, now],
  );
}
