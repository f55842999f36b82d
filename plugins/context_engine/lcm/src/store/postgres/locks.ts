import type { PostgresConnection } from "./connect.js";

/**
 * One compaction per conversation at a time, across every process sharing the
 * database: a session-level advisory lock keyed by (schema, conversation) on a
 * connection held for the whole pass. When the holder dies or its connection
 * drops, PostgreSQL releases the lock, so a killed pass never blocks the next.
 * Returns null without waiting when another process holds it.
 */
export async function withConversationLock<T>(
  conn: PostgresConnection,
  conversationId: number,
  fn: (lock: { stillHeld(): Promise<boolean> }) => Promise<T>,
): Promise<{ value: T } | null> {
  const client = await conn.pool.connect();
  let broken = false;
  const onError = () => {
    broken = true;
  };
  client.on("error", onError);
  try {
    const key: [string, number] = [`lcm:compact:${conn.options.schema}`, conversationId];
    const got = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock(hashtext($1), $2::int) AS ok", key);
    if (!got.rows[0]?.ok) return null;
    try {
      const stillHeld = async () => {
        if (broken) return false;
        // The lock lives as long as this connection: a round trip on it proves both.
        try {
          const r = await client.query<{ n: string }>(
            "SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND classid = hashtext($1)::oid AND objid = $2::int::oid AND granted",
            key,
          );
          return Number(r.rows[0]?.n ?? 0) > 0;
        } catch {
          broken = true;
          return false;
        }
      };
      return { value: await fn({ stillHeld }) };
    } finally {
      if (!broken) await client.query("SELECT pg_advisory_unlock(hashtext($1), $2::int)", key).catch(() => {});
    }
  } finally {
    client.off("error", onError);
    // A broken connection is destroyed rather than returned to the pool.
    client.release(broken);
  }
}
