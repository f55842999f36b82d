import type Database from "better-sqlite3";
import { registerCjkText } from "./cjk-text.js";

const msgCols = "id, conversation_id, seq, role, text, payload, shape, name, tool_call_id, extra, tokens, created_at, hash, flags";

/** Every statement the SQLite store runs per call, by name. */
const SQL = {
  convBySession: "SELECT * FROM conversations WHERE session_id = ?",
  convById: "SELECT * FROM conversations WHERE id = ?",
  listConvs: "SELECT * FROM conversations ORDER BY id",
  insertConv: "INSERT OR IGNORE INTO conversations (session_id, created_at, updated_at) VALUES (?, ?, ?)",
  bumpConvAfterIngest: `UPDATE conversations SET message_count = message_count + ?, message_tokens = message_tokens + ?, text_bytes = text_bytes + ?,
       updated_at = ?, frontier_tokens = frontier_tokens + ?, frontier_count = frontier_count + ?, frontier_version = frontier_version + ?
     WHERE id = ?`,
  bumpFrontier:
    "UPDATE conversations SET frontier_tokens = frontier_tokens + ?, frontier_count = frontier_count + ?, frontier_version = frontier_version + 1, updated_at = ? WHERE id = ?",
  setFrontierCounters:
    "UPDATE conversations SET frontier_tokens = ?, frontier_count = ?, frontier_version = frontier_version + 1, updated_at = ? WHERE id = ?",
  // Hashes come back as hex text: a string per row is far cheaper than a Buffer per row.
  lastSeq: "SELECT max(seq) AS s FROM messages WHERE conversation_id = ?",
  hashesInOrder: "SELECT id, seq, lower(hex(hash)) AS hash FROM messages WHERE conversation_id = ? ORDER BY seq",
  hashAtSeq: "SELECT id, seq, lower(hex(hash)) AS hash FROM messages WHERE conversation_id = ? AND seq = ?",
  ingestKey: "SELECT message_id AS id FROM ingest_keys WHERE conversation_id = ? AND key = ?",
  writerPositions: "SELECT list_index AS \"index\", fingerprint FROM writer_positions WHERE conversation_id = ? ORDER BY id DESC LIMIT ?",
  insertWriterPosition: "INSERT INTO writer_positions (conversation_id, list_index, fingerprint) VALUES (?, ?, ?)",
  trimWriterPositions: `DELETE FROM writer_positions WHERE conversation_id = ? AND id <= (
       SELECT id FROM writer_positions WHERE conversation_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
  insertIngestKey: "INSERT OR IGNORE INTO ingest_keys (conversation_id, key, message_id, created_at) VALUES (?, ?, ?, ?)",
  insertMessage: `INSERT INTO messages (conversation_id, seq, role, shape, text, payload, name, tool_call_id, extra, tokens, created_at, hash, flags)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  insertPart:
    "INSERT INTO message_parts (message_id, kind, ordinal, call_id, name, body, payload, span, extra) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
  insertFts: "INSERT INTO messages_fts (rowid, body, ctag) VALUES (?, ?, ?)",
  // The trigram index holds the CJK runs of a body only (see cjk-text.ts).
  insertCjk: "INSERT INTO messages_cjk (rowid, body) VALUES (?, lcm_cjk_text(?))",
  insertPending: "INSERT INTO fts_pending (message_id) VALUES (?)",
  // An ingest's new messages (every seq from the first it stored) queued for indexing in one statement.
  insertPendingFrom: "INSERT INTO fts_pending (message_id) SELECT id FROM messages WHERE conversation_id = ? AND seq >= ?",
  deletePending: "DELETE FROM fts_pending WHERE message_id = ?",
  pendingCount: "SELECT count(*) AS n FROM fts_pending",
  pendingSlice: `SELECT s.id AS id, s.body AS body, s.ctag AS ctag, m.flags AS flags FROM fts_pending p
     JOIN message_search s ON s.id = p.message_id JOIN messages m ON m.id = p.message_id ORDER BY p.message_id LIMIT ?`,
  insertPayload:
    "INSERT OR IGNORE INTO payloads (hash, bytes, mime, is_text, data, created_at) VALUES (?, ?, ?, ?, ?, ?)",
  payloadText: "SELECT CAST(data AS TEXT) AS t FROM payloads WHERE hash = ?",
  payload: "SELECT * FROM payloads WHERE hash = ?",
  messageById: (`SELECT ${msgCols} FROM messages WHERE id = ?`),
  // A leaf summary's sources in one statement (a JSON array of ids), not one read per row.
  messagesByIds: (`SELECT ${msgCols} FROM messages WHERE id IN (SELECT value FROM json_each(?))`),
  messageBySeq: (`SELECT ${msgCols} FROM messages WHERE conversation_id = ? AND seq = ?`),
  messageMeta: "SELECT id, conversation_id, seq, tokens, created_at FROM messages WHERE id = ?",
  // A summary's sources read and its lineage written in one statement each (a JSON array), not one call per row.
  messageMetaByIds: "SELECT id, conversation_id, seq, tokens, created_at FROM messages WHERE id IN (SELECT value FROM json_each(?))",
  rangeAsc: (`SELECT ${msgCols} FROM messages WHERE conversation_id = ? AND seq BETWEEN ? AND ? ORDER BY seq LIMIT ?`),
  rangeDesc: (`SELECT ${msgCols} FROM messages WHERE conversation_id = ? AND seq BETWEEN ? AND ? ORDER BY seq DESC LIMIT ?`),
  tokensInRange: "SELECT sum(tokens) AS t FROM messages WHERE conversation_id = ? AND seq BETWEEN ? AND ?",
  partsOf: "SELECT * FROM message_parts WHERE message_id = ? ORDER BY kind, ordinal",
  callMessage: `SELECT ${msgCols.split(", ").map((c) => `m.${c}`).join(", ")} FROM message_parts p JOIN messages m ON m.id = p.message_id
     WHERE p.call_id = ? AND p.kind = 1 AND m.conversation_id = ? ORDER BY m.seq LIMIT 1`,
  toolResults: (`SELECT ${msgCols} FROM messages WHERE conversation_id = ? AND tool_call_id = ? ORDER BY seq`),
  insertSummary: `INSERT INTO summaries (id, conversation_id, kind, depth, content, tokens, level, model, earliest_at, latest_at, first_seq, last_seq,
       descendant_messages, source_tokens, meta, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  insertSummarySources: "INSERT INTO summary_sources (summary_rid, ordinal, message_id) SELECT ?, key, value FROM json_each(?)",
  insertSummaryChildren: "INSERT INTO summary_children (summary_id, ordinal, child_id) SELECT ?, key, value FROM json_each(?)",
  insertSummaryFts: "INSERT INTO summaries_fts (rowid, body, ctag) VALUES (?, ?, ?)",
  summaryById: "SELECT * FROM summaries WHERE id = ?",
  summariesOf: "SELECT * FROM summaries WHERE conversation_id = ? ORDER BY first_seq, depth",
  summaryMessages: "SELECT message_id FROM summary_sources WHERE summary_rid = (SELECT rowid FROM summaries WHERE id = ?) ORDER BY ordinal",
  summaryChildren: "SELECT child_id FROM summary_children WHERE summary_id = ? ORDER BY ordinal",
  summaryParents: "SELECT summary_id FROM summary_children WHERE child_id = ? ORDER BY summary_id",
  coveringSummaries: "SELECT s.id AS summary_id FROM summary_sources ss JOIN summaries s ON s.rowid = ss.summary_rid WHERE ss.message_id = ? ORDER BY s.id",
  descendants: `WITH RECURSIVE tree(id) AS (SELECT ? UNION SELECT c.child_id FROM summary_children c JOIN tree t ON c.summary_id = t.id)
     SELECT DISTINCT sm.message_id FROM tree t JOIN summaries s ON s.id = t.id JOIN summary_sources sm ON sm.summary_rid = s.rowid
     JOIN messages m ON m.id = sm.message_id ORDER BY m.seq`,
  maxOrdinal: "SELECT max(ordinal) AS m FROM frontier WHERE conversation_id = ?",
  insertFrontier: "INSERT INTO frontier (conversation_id, ordinal, message_id, summary_id, tokens) VALUES (?, ?, ?, ?, ?)",
  appendNewToFrontier: `INSERT INTO frontier (conversation_id, ordinal, message_id, summary_id, tokens)
     SELECT conversation_id, seq + ?, id, NULL, tokens FROM messages WHERE conversation_id = ? AND seq >= ? ORDER BY seq`,
  // Ordinals are never negative: `ordinal > -1` reads the whole frontier, `ordinal > n` what follows n.
  frontierAll: "SELECT ordinal, message_id, summary_id, tokens FROM frontier WHERE conversation_id = ? AND ordinal > ? ORDER BY ordinal",
  // The planner's read: each message item with its role and tool-call ids (kind 1 parts, in call order), in one query.
  frontierShapes: `SELECT f.ordinal, f.message_id, f.summary_id, f.tokens, m.role, m.tool_call_id,
       (SELECT group_concat(p.call_id, char(31) ORDER BY p.ordinal) FROM message_parts p WHERE p.message_id = f.message_id AND p.kind = 1) AS calls
     FROM frontier f LEFT JOIN messages m ON m.id = f.message_id WHERE f.conversation_id = ? AND f.ordinal > ? ORDER BY f.ordinal`,
  frontierDesc: "SELECT ordinal, message_id, summary_id, tokens FROM frontier WHERE conversation_id = ? ORDER BY ordinal DESC",
  frontierRange:
    "SELECT ordinal, message_id, summary_id, tokens FROM frontier WHERE conversation_id = ? AND ordinal BETWEEN ? AND ? ORDER BY ordinal",
  /** A leaf's run with its messages' span facts: the sources read with the run (one statement instead of two). */
  frontierRangeSources: `SELECT f.ordinal, f.message_id, f.summary_id, f.tokens, m.conversation_id AS m_conversation_id, m.seq AS m_seq,
       m.tokens AS m_tokens, m.created_at AS m_created_at
     FROM frontier f LEFT JOIN messages m ON m.id = f.message_id WHERE f.conversation_id = ? AND f.ordinal BETWEEN ? AND ? ORDER BY f.ordinal`,
  /**
   * A leaf's run in one aggregate row (nothing per item leaves the database): its message ids in frontier order,
   * the span of those of the conversation, and how many go back in seq (frontier order is seq order otherwise).
   */
  leafRunFacts: `SELECT count(*) AS n, count(message_id) AS messages, group_concat(message_id, ',' ORDER BY ordinal) AS ids,
       total(tokens) AS run_tokens, count(seq) AS own, total(back) AS back, min(seq) AS first_seq, max(seq) AS last_seq,
       min(created_at) AS earliest, max(created_at) AS latest, total(m_tokens) AS source_tokens
     FROM (SELECT f.ordinal, f.message_id, f.tokens, m.seq, m.created_at, m.tokens AS m_tokens,
             m.seq < lag(m.seq) OVER (ORDER BY f.ordinal) AS back
           FROM frontier f LEFT JOIN messages m ON m.id = f.message_id AND m.conversation_id = f.conversation_id
           WHERE f.conversation_id = ? AND f.ordinal BETWEEN ? AND ?)`,
  frontierHasSummary: "SELECT 1 FROM frontier WHERE conversation_id = ? AND summary_id = ?",
  deleteFrontierRange: "DELETE FROM frontier WHERE conversation_id = ? AND ordinal BETWEEN ? AND ?",
  clearFrontier: "DELETE FROM frontier WHERE conversation_id = ?",
};

export type Statements = { readonly [K in keyof typeof SQL]: Database.Statement };

/** Prepare every statement once per handle (preparing costs tens of µs; the hot path runs them every turn). */
export function prepareStatements(db: Database.Database): Statements {
  registerCjkText(db);
  const out: Partial<Record<keyof typeof SQL, Database.Statement>> = {};
  for (const [name, sql] of Object.entries(SQL) as Array<[keyof typeof SQL, string]>) out[name] = db.prepare(sql);
  return out as Statements;
}
