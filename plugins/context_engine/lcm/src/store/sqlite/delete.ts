import type Database from "better-sqlite3";
import { FLAG_CJK } from "../codec.js";
import type { ConversationUsage, DeleteReport } from "../types.js";
import { stmt } from "./statements.js";

/**
 * Hard delete of one conversation: messages, parts, summaries, lineage,
 * frontier, every full-text entry, and payloads nothing else references.
 * One transaction; space is returned to the file afterwards (incremental vacuum).
 */
export function deleteConversationRows(db: Database.Database, conversationId: number): DeleteReport | null {
  const report = db.transaction(() => deleteInTransaction(db, conversationId)).immediate();
  if (report) {
    try {
      db.pragma("incremental_vacuum");
    } catch {
      // databases created before auto_vacuum keep their pages until a VACUUM
    }
  }
  return report;
}

function deleteInTransaction(db: Database.Database, conversationId: number): DeleteReport | null {
  const conv = stmt(db, "SELECT id, session_id FROM conversations WHERE id = ?").get(conversationId) as
    | { id: number; session_id: string }
    | undefined;
  if (!conv) return null;
  const payloads = new Set<string>();
  for (const r of stmt(
    db,
    `SELECT payload FROM messages WHERE conversation_id = ? AND payload IS NOT NULL
     UNION SELECT p.payload FROM message_parts p JOIN messages m ON m.id = p.message_id WHERE m.conversation_id = ? AND p.payload IS NOT NULL`,
  ).all(conversationId, conversationId) as Array<{ payload: string }>) {
    payloads.add(r.payload);
  }
  // External-content indexes need the exact indexed values to delete their entries;
  // rows still queued for indexing were never indexed and are only dropped from the queue.
  stmt(db, 
    `INSERT INTO messages_fts (messages_fts, rowid, body, ctag) SELECT 'delete', id, body, ctag FROM message_search
     WHERE conversation_id = ? AND id NOT IN (SELECT message_id FROM fts_pending)`,
  ).run(conversationId);
  stmt(db, 
    `INSERT INTO messages_cjk (messages_cjk, rowid, body)
     SELECT 'delete', s.id, lcm_cjk_text(s.body) FROM message_search s WHERE s.id IN (
       SELECT id FROM messages WHERE conversation_id = ? AND (flags & ${FLAG_CJK}) != 0 AND id NOT IN (SELECT message_id FROM fts_pending))`,
  ).run(conversationId);
  stmt(db, "DELETE FROM fts_pending WHERE message_id IN (SELECT id FROM messages WHERE conversation_id = ?)").run(conversationId);
  stmt(db, 
    `INSERT INTO summaries_fts (summaries_fts, rowid, body, ctag) SELECT 'delete', rid, body, ctag FROM summary_search WHERE conversation_id = ?`,
  ).run(conversationId);
  stmt(db, "DELETE FROM frontier WHERE conversation_id = ?").run(conversationId);
  stmt(db, "DELETE FROM ingest_keys WHERE conversation_id = ?").run(conversationId);
  stmt(db, "DELETE FROM writer_positions WHERE conversation_id = ?").run(conversationId);
  stmt(db, "DELETE FROM drain_claims WHERE conversation_id = ?").run(conversationId);
  stmt(db, "DELETE FROM pending_imports WHERE conversation_id = ?").run(conversationId);
  stmt(db, "DELETE FROM summary_sources WHERE summary_rid IN (SELECT rowid FROM summaries WHERE conversation_id = ?)").run(conversationId);
  stmt(db, "DELETE FROM summary_children WHERE summary_id IN (SELECT id FROM summaries WHERE conversation_id = ?)").run(conversationId);
  const summaries = stmt(db, "DELETE FROM summaries WHERE conversation_id = ?").run(conversationId).changes;
  stmt(db, "DELETE FROM message_parts WHERE message_id IN (SELECT id FROM messages WHERE conversation_id = ?)").run(conversationId);
  const messages = stmt(db, "DELETE FROM messages WHERE conversation_id = ?").run(conversationId).changes;
  stmt(db, "DELETE FROM conversations WHERE id = ?").run(conversationId);
  let freed = 0;
  const stillUsed = stmt(db, "SELECT 1 FROM messages WHERE payload = ? UNION ALL SELECT 1 FROM message_parts WHERE payload = ? LIMIT 1");
  const drop = stmt(db, "DELETE FROM payloads WHERE hash = ?");
  for (const h of payloads) {
    if (stillUsed.get(h, h) === undefined) freed += drop.run(h).changes;
  }
  return { conversationId, sessionId: conv.session_id, messages, summaries, payloads: freed };
}

/** Every conversation with its stored text size, least recently updated first. */
export function conversationUsageRows(db: Database.Database): ConversationUsage[] {
  const rows = stmt(db, "SELECT id, session_id, updated_at, text_bytes FROM conversations ORDER BY updated_at ASC, id ASC").all() as Array<{
    id: number;
    session_id: string;
    updated_at: number;
    text_bytes: number;
  }>;
  return rows.map((r) => ({ id: r.id, sessionId: r.session_id, updatedAt: r.updated_at, textBytes: r.text_bytes }));
}
