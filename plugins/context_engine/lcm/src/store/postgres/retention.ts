import type { ConversationUsage, DeleteReport } from "../types.js";
import type { PostgresConnection } from "./connect.js";

/**
 * Hard delete of one conversation and the payloads only it referenced, in one
 * transaction. The immutability triggers let deletes through only inside it
 * (`lcm.hard_delete` is set for this transaction alone).
 */
export async function deleteConversationPg(conn: PostgresConnection, conversationId: number): Promise<DeleteReport | null> {
  return conn.transaction(async (c) => {
    const conv = await c.query<{ session_id: string }>("SELECT session_id FROM conversations WHERE id = $1 FOR UPDATE", [conversationId]);
    if (!conv.rows[0]) return null;
    await c.query("SELECT set_config('lcm.hard_delete', 'on', true)");
    const payloads = await c.query<{ payload: string }>(
      `SELECT payload FROM messages WHERE conversation_id = $1 AND payload IS NOT NULL
       UNION SELECT p.payload FROM message_parts p JOIN messages m ON m.id = p.message_id WHERE m.conversation_id = $1 AND p.payload IS NOT NULL`,
      [conversationId],
    );
    await c.query("DELETE FROM frontier WHERE conversation_id = $1", [conversationId]);
    await c.query("DELETE FROM ingest_keys WHERE conversation_id = $1", [conversationId]);
    await c.query("DELETE FROM writer_positions WHERE conversation_id = $1", [conversationId]);
    await c.query("DELETE FROM drain_claims WHERE conversation_id = $1", [conversationId]);
    await c.query("DELETE FROM pending_imports WHERE conversation_id = $1", [conversationId]);
    await c.query("DELETE FROM summary_sources WHERE summary_rid IN (SELECT rid FROM summaries WHERE conversation_id = $1)", [conversationId]);
    await c.query("DELETE FROM summary_children WHERE summary_id IN (SELECT id FROM summaries WHERE conversation_id = $1)", [conversationId]);
    const summaries = (await c.query("DELETE FROM summaries WHERE conversation_id = $1", [conversationId])).rowCount ?? 0;
    await c.query("DELETE FROM message_parts WHERE message_id IN (SELECT id FROM messages WHERE conversation_id = $1)", [conversationId]);
    const messages = (await c.query("DELETE FROM messages WHERE conversation_id = $1", [conversationId])).rowCount ?? 0;
    await c.query("DELETE FROM conversations WHERE id = $1", [conversationId]);
    const hashes = payloads.rows.map((r) => r.payload);
    const freed = hashes.length
      ? ((
          await c.query(
            `DELETE FROM payloads p WHERE p.hash = ANY($1::text[])
             AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.payload = p.hash)
             AND NOT EXISTS (SELECT 1 FROM message_parts mp WHERE mp.payload = p.hash)`,
            [hashes],
          )
        ).rowCount ?? 0)
      : 0;
    return { conversationId, sessionId: conv.rows[0].session_id, messages, summaries, payloads: freed };
  });
}

/** Every conversation with its stored text size, least recently updated first. */
export async function conversationUsagePg(conn: PostgresConnection): Promise<ConversationUsage[]> {
  const { rows } = await conn.pool.query<{ id: string; session_id: string; updated_at: string; text_bytes: string }>(
    "SELECT id, session_id, updated_at, text_bytes FROM conversations ORDER BY updated_at ASC, id ASC",
  );
  return rows.map((r) => ({ id: Number(r.id), sessionId: r.session_id, updatedAt: Number(r.updated_at), textBytes: Number(r.text_bytes) }));
}
