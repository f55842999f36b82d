import { z } from "zod";
import { FLAG_CJK } from "../store/codec.js";
import type { LcmStore } from "../store/types.js";
import { SqliteLcmStore } from "../store/sqlite-store.js";
import { stmt } from "../store/statements.js";

export interface DeleteReport {
  conversationId: number;
  sessionId: string;
  messages: number;
  summaries: number;
  payloads: number;
}

/** `engines.lcm.retention` in config.yaml. Every limit is optional; none set = keep everything. */
export const RetentionPolicySchema = z.strictObject({
  max_age_days: z.number().positive().optional(),
  /** Budget for stored text (UTF-8 bytes of every message) across conversations. */
  max_bytes: z.number().int().positive().optional(),
  max_conversations: z.number().int().positive().optional(),
});

export interface RetentionPolicy {
  /** Delete conversations not updated for this many days. */
  maxAgeDays?: number;
  /** Delete the least recently updated conversations until the stored text is at most this many bytes. */
  maxBytes?: number;
  /** Keep at most this many conversations (most recently updated). */
  maxConversations?: number;
  /** Session ids never deleted by the policy (e.g. the live session). */
  protect?: readonly string[];
  now?: number;
}

export interface RetentionReport {
  deleted: Array<DeleteReport & { reason: "age" | "size" | "count" }>;
  storedBytesBefore: number;
  storedBytesAfter: number;
}

function sqlite(store: LcmStore): SqliteLcmStore {
  if (store instanceof SqliteLcmStore) return store;
  throw new Error("retention needs the SQLite store from openLcmStore()");
}

/**
 * Hard delete of one conversation: messages, parts, summaries, lineage,
 * frontier, every full-text entry, and payloads nothing else references.
 * One transaction; space is returned to the file afterwards (incremental vacuum).
 */
export function deleteConversation(store: LcmStore, conversationId: number): DeleteReport | null {
  const s = sqlite(store);
  const db = s.db;
  const report = db
    .transaction((): DeleteReport | null => {
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
      stmt(
        db,
        `INSERT INTO messages_fts (messages_fts, rowid, body, ctag) SELECT 'delete', id, body, ctag FROM message_search
         WHERE conversation_id = ? AND id NOT IN (SELECT message_id FROM fts_pending)`,
      ).run(conversationId);
      stmt(
        db,
        `INSERT INTO messages_cjk (messages_cjk, rowid, body)
         SELECT 'delete', s.id, s.body FROM message_search s WHERE s.id IN (
           SELECT id FROM messages WHERE conversation_id = ? AND (flags & ${FLAG_CJK}) != 0 AND id NOT IN (SELECT message_id FROM fts_pending))`,
      ).run(conversationId);
      stmt(db, "DELETE FROM fts_pending WHERE message_id IN (SELECT id FROM messages WHERE conversation_id = ?)").run(conversationId);
      stmt(
        db,
        `INSERT INTO summaries_fts (summaries_fts, rowid, body, ctag) SELECT 'delete', rid, body, ctag FROM summary_search WHERE conversation_id = ?`,
      ).run(conversationId);
      stmt(db, "DELETE FROM frontier WHERE conversation_id = ?").run(conversationId);
      stmt(db, "DELETE FROM summary_messages WHERE summary_id IN (SELECT id FROM summaries WHERE conversation_id = ?)").run(conversationId);
      stmt(db, "DELETE FROM summary_children WHERE summary_id IN (SELECT id FROM summaries WHERE conversation_id = ?)").run(conversationId);
      const summaries = stmt(db, "DELETE FROM summaries WHERE conversation_id = ?").run(conversationId).changes;
      stmt(db, "DELETE FROM message_parts WHERE message_id IN (SELECT id FROM messages WHERE conversation_id = ?)").run(conversationId);
      const messages = stmt(db, "DELETE FROM messages WHERE conversation_id = ?").run(conversationId).changes;
      stmt(db, "DELETE FROM conversations WHERE id = ?").run(conversationId);
      let freed = 0;
      const stillUsed = stmt(
        db,
        "SELECT 1 FROM messages WHERE payload = ? UNION ALL SELECT 1 FROM message_parts WHERE payload = ? LIMIT 1",
      );
      const drop = stmt(db, "DELETE FROM payloads WHERE hash = ?");
      for (const h of payloads) {
        if (stillUsed.get(h, h) === undefined) freed += drop.run(h).changes;
      }
      return { conversationId, sessionId: conv.session_id, messages, summaries, payloads: freed };
    })
    .immediate();
  if (report) {
    try {
      db.pragma("incremental_vacuum");
    } catch {
      // databases created before auto_vacuum keep their pages until a VACUUM
    }
  }
  return report;
}

export function deleteSession(store: LcmStore, sessionId: string): DeleteReport | null {
  const conv = store.findConversation(sessionId);
  return conv ? deleteConversation(store, conv.id) : null;
}

/** Apply an age / size / count policy, least recently updated conversations first. */
export function applyRetention(store: LcmStore, policy: RetentionPolicy): RetentionReport {
  const db = sqlite(store).db;
  const now = policy.now ?? Date.now();
  const protect = new Set(policy.protect ?? []);
  const rows = stmt(db, "SELECT id, session_id, updated_at, text_bytes FROM conversations ORDER BY updated_at ASC, id ASC").all() as Array<{
    id: number;
    session_id: string;
    updated_at: number;
    text_bytes: number;
  }>;
  const before = rows.reduce((a, r) => a + r.text_bytes, 0);
  let total = before;
  let count = rows.length;
  const deleted: RetentionReport["deleted"] = [];
  for (const r of rows) {
    if (protect.has(r.session_id)) continue;
    let reason: "age" | "size" | "count" | null = null;
    if (policy.maxAgeDays !== undefined && r.updated_at < now - policy.maxAgeDays * 86_400_000) reason = "age";
    else if (policy.maxConversations !== undefined && count > policy.maxConversations) reason = "count";
    else if (policy.maxBytes !== undefined && total > policy.maxBytes) reason = "size";
    if (!reason) continue;
    const rep = deleteConversation(store, r.id);
    if (!rep) continue;
    deleted.push({ ...rep, reason });
    total -= r.text_bytes;
    count--;
  }
  return { deleted, storedBytesBefore: before, storedBytesAfter: total };
}
