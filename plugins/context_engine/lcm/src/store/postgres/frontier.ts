import type { Pool, PoolClient } from "pg";
import type { Frontier, FrontierItem, FrontierItemKey, SummaryKind, SummaryLineage, SummaryRecord } from "../types.js";
import { toFrontierItem, toShapedFrontierItem, toSummary } from "./rows.js";

/** Frontier and summary reads and the frontier writes of the PostgreSQL driver. */

/** With `shapes`, each message item carries its role and tool-call ids, read in the same query (the planner's one read). */
export async function getFrontierPg(pool: Pool, conversationId: number, shapes = false, afterOrdinal = -1): Promise<Frontier> {
  // One snapshot for the counters and the items (a reader comparing them must see the same state).
  const c = await pool.connect();
  try {
    await c.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    const conv = (await c.query("SELECT frontier_version, frontier_tokens, frontier_count FROM conversations WHERE id = $1", [conversationId])).rows[0];
    if (!conv) throw new Error(`no conversation ${conversationId}`);
    const sql = shapes
      ? `SELECT f.*, m.role, m.tool_call_ids, m.tool_call_id FROM frontier f LEFT JOIN messages m ON m.id = f.message_id
         WHERE f.conversation_id = $1 AND f.ordinal > $2 ORDER BY f.ordinal`
      : "SELECT * FROM frontier WHERE conversation_id = $1 AND ordinal > $2 ORDER BY ordinal";
    const items = (await c.query(sql, [conversationId, afterOrdinal])).rows.map(shapes ? toShapedFrontierItem : toFrontierItem);
    await c.query("COMMIT");
    return { conversationId, version: Number(conv.frontier_version), tokens: Number(conv.frontier_tokens), count: Number(conv.frontier_count), items };
  } catch (error) {
    await c.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    c.release();
  }
}

export async function getFrontierTailPg(pool: Pool, conversationId: number, maxTokens: number, minItems: number): Promise<FrontierItem[]> {
  // Running sum from the newest item: the query stops reading once the budget (and minItems) is passed.
  const { rows } = await pool.query(
    `SELECT * FROM (
       SELECT f.*, sum(tokens) OVER (ORDER BY ordinal DESC) AS used, row_number() OVER (ORDER BY ordinal DESC) AS n
       FROM frontier f WHERE conversation_id = $1) t
     WHERE n <= $3 OR used <= $2 ORDER BY ordinal DESC`,
    [conversationId, maxTokens, minItems],
  );
  const out: FrontierItem[] = [];
  for (const r of rows) {
    // Same rule as the SQLite store: stop at the first item over budget once minItems are in.
    if (out.length >= minItems && Number(r.used) > maxTokens) break;
    out.push(toFrontierItem(r));
  }
  return out.reverse();
}

async function resolve(c: PoolClient, conversationId: number, k: FrontierItemKey): Promise<{ messageId: number | null; summaryId: string | null; tokens: number }> {
  if (k.kind === "message") {
    const r = (await c.query("SELECT tokens FROM messages WHERE id = $1 AND conversation_id = $2", [k.messageId, conversationId])).rows[0];
    if (!r) throw new Error(`frontier: message ${k.messageId} is not in conversation ${conversationId}`);
    return { messageId: k.messageId, summaryId: null, tokens: r.tokens };
  }
  const s = (await c.query("SELECT tokens FROM summaries WHERE id = $1 AND conversation_id = $2", [k.summaryId, conversationId])).rows[0];
  if (!s) throw new Error(`frontier: summary ${k.summaryId} is not in conversation ${conversationId}`);
  return { messageId: null, summaryId: k.summaryId, tokens: s.tokens };
}

export async function setFrontierPg(
  c: PoolClient,
  conversationId: number,
  items: readonly FrontierItemKey[],
  expectedVersion: number | undefined,
): Promise<{ ok: true; version: number } | { ok: false; version: number }> {
  const conv = (await c.query("SELECT frontier_version FROM conversations WHERE id = $1 FOR UPDATE", [conversationId])).rows[0];
  if (!conv) throw new Error(`no conversation ${conversationId}`);
  const version = Number(conv.frontier_version);
  if (expectedVersion !== undefined && expectedVersion !== version) return { ok: false, version };
  const resolved = [];
  for (const k of items) resolved.push(await resolve(c, conversationId, k));
  await c.query("DELETE FROM frontier WHERE conversation_id = $1", [conversationId]);
  let tokens = 0;
  for (const [i, r] of resolved.entries()) {
    await c.query("INSERT INTO frontier (conversation_id, ordinal, message_id, summary_id, tokens) VALUES ($1, $2, $3, $4, $5)", [conversationId, i, r.messageId, r.summaryId, r.tokens]);
    tokens += r.tokens;
  }
  await c.query("UPDATE conversations SET frontier_tokens = $2, frontier_count = $3, frontier_version = frontier_version + 1, updated_at = $4 WHERE id = $1", [
    conversationId, tokens, resolved.length, Date.now(),
  ]);
  return { ok: true, version: version + 1 };
}

export async function appendToFrontierPg(c: PoolClient, conversationId: number, items: readonly FrontierItemKey[]): Promise<number> {
  const conv = (await c.query("SELECT frontier_version FROM conversations WHERE id = $1 FOR UPDATE", [conversationId])).rows[0];
  if (!conv) throw new Error(`no conversation ${conversationId}`);
  if (items.length === 0) return Number(conv.frontier_version);
  let ordinal = Number((await c.query("SELECT COALESCE(max(ordinal), -1) + 1 AS o FROM frontier WHERE conversation_id = $1", [conversationId])).rows[0].o);
  let tokens = 0;
  for (const k of items) {
    const r = await resolve(c, conversationId, k);
    await c.query("INSERT INTO frontier (conversation_id, ordinal, message_id, summary_id, tokens) VALUES ($1, $2, $3, $4, $5)", [conversationId, ordinal++, r.messageId, r.summaryId, r.tokens]);
    tokens += r.tokens;
  }
  await c.query("UPDATE conversations SET frontier_tokens = frontier_tokens + $2, frontier_count = frontier_count + $3, frontier_version = frontier_version + 1, updated_at = $4 WHERE id = $1", [
    conversationId, tokens, items.length, Date.now(),
  ]);
  return Number(conv.frontier_version) + 1;
}

export async function inFrontierPg(pool: Pool, conversationId: number, item: FrontierItemKey): Promise<boolean> {
  const [column, id] = item.kind === "message" ? ["message_id", item.messageId] : ["summary_id", item.summaryId];
  return (await pool.query(`SELECT 1 FROM frontier WHERE conversation_id = $1 AND ${column} = $2 LIMIT 1`, [conversationId, id])).rows.length > 0;
}

export async function getSummariesPg(pool: Pool, ids: readonly string[]): Promise<SummaryRecord[]> {
  if (!ids.length) return [];
  const byId = new Map((await pool.query("SELECT * FROM summaries WHERE id = ANY($1::text[])", [ids])).rows.map((r) => [r.id as string, toSummary(r)]));
  return ids.map((id) => byId.get(id)).filter((s): s is SummaryRecord => s !== undefined);
}

export async function listSummariesPg(pool: Pool, conversationId: number, options: { depth?: number; kind?: SummaryKind }): Promise<SummaryRecord[]> {
  const { rows } = await pool.query(
    "SELECT * FROM summaries WHERE conversation_id = $1 AND ($2::int IS NULL OR depth = $2) AND ($3::text IS NULL OR kind = $3) ORDER BY first_seq, depth, created_at",
    [conversationId, options.depth ?? null, options.kind ?? null],
  );
  return rows.map(toSummary);
}

export async function lineagePg(pool: Pool, summaryId: string): Promise<SummaryLineage> {
  const [m, c, p] = await Promise.all([
    pool.query(
      "SELECT sm.message_id FROM summary_sources sm JOIN messages m ON m.id = sm.message_id WHERE sm.summary_rid = (SELECT rid FROM summaries WHERE id = $1) ORDER BY m.seq",
      [summaryId],
    ),
    pool.query("SELECT child_id FROM summary_children WHERE summary_id = $1 ORDER BY ordinal", [summaryId]),
    pool.query("SELECT summary_id FROM summary_children WHERE child_id = $1 ORDER BY summary_id", [summaryId]),
  ]);
  return {
    messageIds: m.rows.map((r) => Number(r.message_id)),
    childSummaryIds: c.rows.map((r) => r.child_id as string),
    parentSummaryIds: p.rows.map((r) => r.summary_id as string),
  };
}

export async function descendantMessageIdsPg(pool: Pool, summaryId: string): Promise<number[]> {
  const { rows } = await pool.query(
    `WITH RECURSIVE tree(id) AS (SELECT $1::text UNION SELECT c.child_id FROM summary_children c JOIN tree t ON c.summary_id = t.id)
     SELECT DISTINCT m.id, m.seq FROM tree t JOIN summaries s ON s.id = t.id JOIN summary_sources sm ON sm.summary_rid = s.rid JOIN messages m ON m.id = sm.message_id ORDER BY m.seq`,
    [summaryId],
  );
  return rows.map((r) => Number(r.id));
}

export async function summariesCoveringMessagePg(pool: Pool, messageId: number): Promise<string[]> {
  const { rows } = await pool.query("SELECT s.id FROM summary_sources sm JOIN summaries s ON s.rid = sm.summary_rid WHERE sm.message_id = $1 ORDER BY s.id", [messageId]);
  return rows.map((r) => r.id as string);
}
