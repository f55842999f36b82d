import type { Message } from "@context-engine/core";
import type { PoolClient } from "pg";
import type { Redactor } from "../../redact/types.js";
import { encodeMessage } from "../codec.js";
import { IngestInputs, ingestResult, planIngest, type IngestPlan, type StoredRef, type StoredView } from "../ingest-plan.js";
import type { IngestOptions, IngestResult } from "../types.js";

export interface IngestDeps {
  redactor: Redactor;
  countTokens: (m: Message) => number;
}

/** Stored hashes read ahead for alignment: more than it ever walks back (256 mapped ids plus the anchor run). */
const TAIL_READ = 1024;

/**
 * Idempotent ingest. The conversation row is locked for the transaction, so
 * concurrent writers of one conversation (other processes, other machines)
 * take turns: the second one aligns against what the first stored and
 * appends only what is still new. The plan (ingest-plan.ts) decides; this
 * reads the stored tail ahead, the known hashes only when the anchor fails,
 * and writes the rows.
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
  const mode = options.mode ?? "align";
  const inputs = new IngestInputs(messages, options.isSynthetic, { encode: (m, _i, screened) => encodeMessage(m, deps.redactor, screened) });
  let tail: StoredRef[] = [];
  if (mode === "align" && count > 0) {
    const { rows } = await c.query<{ id: string; hash: string }>("SELECT id, hash FROM messages WHERE conversation_id = $1 ORDER BY seq DESC LIMIT $2", [conversationId, TAIL_READ]);
    tail = rows.map((r) => ({ id: Number(r.id), hash: r.hash }));
  }
  const view: StoredView = { count, tail: (k) => tail[k] ?? null };
  let plan = planIngest(inputs, view, mode);
  if ("needKnownHashes" in plan) {
    // No anchor: the newest stored copy of each input hash, in one query, then plan again (nothing is encoded twice).
    const { rows } = await c.query<{ hash: string; id: string }>(
      "SELECT hash, max(id) AS id FROM messages WHERE conversation_id = $1 AND hash = ANY($2::text[]) GROUP BY hash",
      [conversationId, plan.needKnownHashes],
    );
    const known = new Map(rows.map((r) => [r.hash, Number(r.id)]));
    plan = planIngest(inputs, { ...view, knownId: (h) => known.get(h) ?? null }, mode);
    if ("needKnownHashes" in plan) throw new Error("ingest: alignment asked for hashes twice");
  }
  return writePlan(c, deps, conversationId, count, plan, options);
}

/** Rows per INSERT: one round trip per chunk instead of one per message (a bulk import stays in bounded statements). */
const INSERT_CHUNK = 500;

async function writePlan(c: PoolClient, deps: IngestDeps, conversationId: number, count: number, plan: IngestPlan, options: IngestOptions): Promise<IngestResult> {
  const now = options.now ?? Date.now();
  const toFrontier = options.appendToFrontier ?? true;
  const newIds: number[] = [];
  let tokens = 0;
  let bytes = 0;
  for (let from = 0; from < plan.append.length; from += INSERT_CHUNK) {
    const rows = plan.append.slice(from, from + INSERT_CHUNK).map(({ index, encoded: e }, j) => {
      const t = deps.countTokens(e.message);
      // PostgreSQL text cannot hold NUL; the message itself keeps it (escaped in json).
      const body = e.searchText.replace(/\u0000/g, "");
      tokens += t;
      bytes += Buffer.byteLength(body);
      return { seq: count + from + j, e, t, body, createdAt: options.timestamps?.[index] ?? now };
    });
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
        rows.map((r) => JSON.stringify(r.e.message)),
        rows.map((r) => r.body),
        rows.map((r) => r.t),
        rows.map((r) => r.createdAt),
        rows.map((r) => r.e.hashHex),
        rows.map((r) => JSON.stringify(r.e.toolCallIds)),
        rows.map((r) => r.e.toolCallId),
        rows.map((r) => r.e.redacted),
      ],
    );
    const idBySeq = new Map(inserted.map((r) => [Number(r.seq), Number(r.id)]));
    for (const r of rows) newIds.push(idBySeq.get(r.seq)!);
  }
  const appended = newIds.length;
  if (appended > 0 && toFrontier) {
    // The new messages join the frontier in seq order, in one statement.
    await c.query(
      `INSERT INTO frontier (conversation_id, ordinal, message_id, tokens)
       SELECT $1, (SELECT COALESCE(max(ordinal), -1) + 1 FROM frontier WHERE conversation_id = $1) + (m.seq - $2), m.id, m.tokens
       FROM messages m WHERE m.conversation_id = $1 AND m.seq >= $2`,
      [conversationId, count],
    );
  }
  if (appended > 0) {
    await c.query(
      `UPDATE conversations SET message_count = message_count + $2, last_seq = $3, message_tokens = message_tokens + $4, text_bytes = text_bytes + $5,
         updated_at = $6, frontier_tokens = frontier_tokens + $7, frontier_count = frontier_count + $8, frontier_version = frontier_version + $9 WHERE id = $1`,
      [conversationId, appended, count + appended - 1, tokens, bytes, Date.now(), toFrontier ? tokens : 0, toFrontier ? appended : 0, toFrontier ? 1 : 0],
    );
  }
  return ingestResult(conversationId, plan, newIds, count);
}
