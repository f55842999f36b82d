import { randomBytes } from "node:crypto";
import pg from "pg";
import { POSTGRES_URL } from "./server.js";

/** A unique `application_name`, so a test ends only its own store's sessions (other runs share the server). */
export function uniqueAppName(): string {
  return `lcm-fault-${randomBytes(5).toString("hex")}`;
}

/** A plain client outside the store: holds locks, ends sessions, drops schemas. */
export async function adminClient(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  client.on("error", () => {});
  await client.connect();
  return client;
}

/** End every session of `appName` as an operator would (`pg_terminate_backend`); returns how many. */
export async function terminateSessions(admin: pg.Client, appName: string): Promise<number> {
  const { rows } = await admin.query<{ n: number }>(
    "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()",
    [appName],
  );
  return rows[0]?.n ?? 0;
}

/** Wait (polling the server, bounded) until a session of `appName` waits on a lock: its call is in flight inside a transaction. */
export async function waitForLockWait(admin: pg.Client, appName: string, boundMs = 20_000): Promise<void> {
  const until = Date.now() + boundMs;
  while (Date.now() < until) {
    const { rows } = await admin.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
      [appName],
    );
    if ((rows[0]?.n ?? 0) > 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no session of ${appName} started waiting on a lock`);
}

/** Lock a conversation's row from outside, inside an open transaction (a stalled writer); `release()` rolls back. */
export async function holdConversation(admin: pg.Client, schema: string, conversationId: number): Promise<{ release(): Promise<void> }> {
  await admin.query("BEGIN");
  await admin.query(`SELECT 1 FROM ${schema}.conversations WHERE id = $1 FOR UPDATE`, [conversationId]);
  return {
    async release() {
      await admin.query("ROLLBACK");
    },
  };
}

export async function dropSchema(admin: pg.Client, schema: string): Promise<void> {
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
}
