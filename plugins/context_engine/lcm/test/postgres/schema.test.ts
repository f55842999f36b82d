import { afterEach, describe, expect, it } from "vitest";
import { migratePostgres, POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION, hasTrigramIndex } from "../../src/store/postgres/migrations.js";
import { withConversationLock } from "../../src/store/postgres/locks.js";
import { HAS_CJK_SQL } from "../../src/store/postgres/layout.js";
import { MESSAGE_VECTOR } from "../../src/store/postgres/message-vector.js";
import { conversationUsagePg, deleteConversationPg } from "../../src/store/postgres/retention.js";
import { parsePostgresOptions } from "../../src/store/postgres/options.js";
import type { PostgresConnection } from "../../src/store/postgres/connect.js";
import { postgresReachable, testSchema } from "./server.js";

const reachable = await postgresReachable();

let drops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const d of drops.splice(0)) await d();
});
async function fresh() {
  const t = await testSchema();
  drops.push(t.drop);
  return t;
}

/** One conversation with two messages, a leaf summary over them and a frontier, written as the driver will. */
async function seed(conn: PostgresConnection, session: string) {
  return conn.transaction(async (c) => {
    const conv = await c.query<{ id: string }>("INSERT INTO conversations (session_id, created_at, updated_at, text_bytes) VALUES ($1, 1, 1, 10) RETURNING id", [session]);
    const id = Number(conv.rows[0]!.id);
    await c.query("INSERT INTO payloads (hash, bytes, is_text, data) VALUES ($1, 3, true, 'abc')", [`h_${session}`]);
    const m = await c.query<{ id: string }>(
      `INSERT INTO messages (conversation_id, seq, role, message, body, payload, tokens, created_at, hash)
       VALUES ($1, 0, 'user', '{"role":"user"}', 'the payment service keeps timing out', $2, 5, 1, 'a'),
              ($1, 1, 'assistant', '{"role":"assistant"}', 'retry logic checked', NULL, 4, 2, 'b') RETURNING id`,
      [id, `h_${session}`],
    );
    await c.query(
      `INSERT INTO summaries (id, conversation_id, kind, depth, content, tokens, level, earliest_at, latest_at, first_seq, last_seq, descendant_messages, source_tokens, created_at)
       VALUES ($1, $2, 'leaf', 0, 'payment timeouts', 2, 'normal', 1, 2, 0, 1, 2, 9, 3)`,
      [`sum_${session}`, id],
    );
    for (const [i, r] of m.rows.entries()) {
      await c.query("INSERT INTO summary_sources (summary_rid, message_id, ordinal) SELECT rid, $2, $3 FROM summaries WHERE id = $1", [`sum_${session}`, r.id, i]);
    }
    await c.query("INSERT INTO frontier (conversation_id, ordinal, summary_id, tokens) VALUES ($1, 0, $2, 2)", [id, `sum_${session}`]);
    return { id, messageIds: m.rows.map((r) => Number(r.id)) };
  });
}

describe.skipIf(!reachable)("PostgreSQL store: schema, immutability, locks, hard delete", () => {
  it("migrates a fresh schema once, also when several processes open it at the same time", async () => {
    const t = await fresh();
    const conns = await Promise.all([t.open(), t.open(), t.open()]);
    const before = await Promise.all(conns.map((c) => migratePostgres(c)));
    expect(before.filter((v) => v === 0)).toHaveLength(1);
    expect(before.filter((v) => v === POSTGRES_SCHEMA_VERSION)).toHaveLength(2);
    const { rows } = await conns[0]!.pool.query("SELECT version FROM lcm_migrations ORDER BY version");
    expect(rows.map((r) => r.version)).toEqual(POSTGRES_MIGRATIONS.map((m) => m.version));
    expect(await migratePostgres(conns[0]!)).toBe(POSTGRES_SCHEMA_VERSION);
    expect(await hasTrigramIndex(conns[0]!)).toBe(true);
  });

  it("refuses a schema newer than the package knows", async () => {
    const t = await fresh();
    const c = await t.open();
    await migratePostgres(c);
    await c.pool.query("INSERT INTO lcm_migrations (version, name) VALUES (999, 'future')");
    await expect(migratePostgres(c)).rejects.toThrow(/version 999, newer/);
  });

  it("refuses to update or delete stored history outside a hard delete", async () => {
    const t = await fresh();
    const c = await t.open();
    await migratePostgres(c);
    const { id, messageIds } = await seed(c, "s");
    await expect(c.pool.query("UPDATE messages SET body = 'forged' WHERE id = $1", [messageIds[0]])).rejects.toThrow(/immutable/);
    await expect(c.pool.query("DELETE FROM messages WHERE id = $1", [messageIds[0]])).rejects.toThrow(/immutable/);
    await expect(c.pool.query("UPDATE summaries SET content = 'forged'")).rejects.toThrow(/immutable/);
    await expect(c.pool.query("DELETE FROM summary_sources")).rejects.toThrow(/immutable/);
    // a duplicate seq from a second writer conflicts instead of forking the history
    await expect(
      c.pool.query("INSERT INTO messages (conversation_id, seq, role, message, body, tokens, created_at, hash) VALUES ($1, 1, 'user', '{}', 'x', 1, 1, 'z')", [id]),
    ).rejects.toThrow(/duplicate key/);
    const again = await c.pool.query(
      "INSERT INTO messages (conversation_id, seq, role, message, body, tokens, created_at, hash) VALUES ($1, 1, 'user', '{}', 'x', 1, 1, 'z') ON CONFLICT (conversation_id, seq) DO NOTHING",
      [id],
    );
    expect(again.rowCount).toBe(0);
  });

  it("ranks full-text matches with ts_rank_cd over the GIN index; CJK substrings use the CJK trigram index", async () => {
    const t = await fresh();
    const c = await t.open();
    await migratePostgres(c);
    await seed(c, "s");
    const ranked = await c.pool.query<{ body: string; rank: number }>(
      `SELECT body, ts_rank_cd(${MESSAGE_VECTOR}, q, 32) AS rank FROM messages m, phraseto_tsquery('lcm_search', lcm_fold($1)) q WHERE ${MESSAGE_VECTOR} @@ q ORDER BY rank DESC`,
      ["timing"],
    );
    expect(ranked.rows.map((r) => r.body)).toEqual(["the payment service keeps timing out"]);
    expect(ranked.rows[0]!.rank).toBeGreaterThan(0);
    expect(ranked.rows[0]!.rank).toBeLessThan(1); // normalisation 32: rank / (rank + 1), comparable across stores after scaling
    const sub = await c.pool.query("SELECT body FROM messages WHERE body ILIKE $1", ["%ment serv%"]);
    expect(sub.rows).toHaveLength(1);
    // the planner reaches both indexes through the expressions the search module writes
    const plan = async (sql: string) =>
      c.transaction(async (x) => {
        await x.query("SET LOCAL enable_seqscan = off");
        return (await x.query(`EXPLAIN ${sql}`)).rows.map((r) => r["QUERY PLAN"]).join("\n");
      });
    expect(await plan(`SELECT id FROM messages m WHERE ${MESSAGE_VECTOR} @@ phraseto_tsquery('lcm_search', lcm_fold('timing'))`)).toContain("messages_search");
    expect(await plan(`SELECT id FROM messages m WHERE ${HAS_CJK_SQL} AND lcm_cjk(m.body) LIKE '%決済サービス%'`)).toContain("messages_cjk");
  });

  it("lets one process at a time hold a conversation's compaction lock, and frees it when the holder's connection dies", async () => {
    const t = await fresh();
    const a = await t.open();
    const b = await t.open();
    await migratePostgres(a);
    let inside = 0;
    let max = 0;
    const pass = (conn: PostgresConnection) =>
      withConversationLock(conn, 7, async (lock) => {
        inside++;
        max = Math.max(max, inside);
        await new Promise((r) => setTimeout(r, 50));
        const held = await lock.stillHeld();
        inside--;
        return held;
      });
    const results = await Promise.all([pass(a), pass(b), pass(a), pass(b)]);
    expect(max).toBe(1);
    expect(results.filter((r) => r !== null).length).toBeGreaterThanOrEqual(1);
    expect(results.filter((r) => r !== null).every((r) => r!.value === true)).toBe(true);
    // another conversation is not blocked
    const other = await withConversationLock(a, 8, async () => withConversationLock(b, 9, async () => "both"));
    expect(other?.value?.value).toBe("both");
    // the holder's backend is killed mid-pass: the lock goes with it
    const killed = withConversationLock(a, 7, async (lock) => {
      const pid = await b.pool.query<{ pid: number }>(
        "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = 7 AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
      );
      await b.pool.query("SELECT pg_terminate_backend($1)", [pid.rows[0]!.pid]);
      await new Promise((r) => setTimeout(r, 100));
      return lock.stillHeld();
    });
    expect((await killed)?.value).toBe(false);
    expect(await withConversationLock(b, 7, async () => "next")).toEqual({ value: "next" });
  });

  it("hard-deletes a conversation with lineage, frontier and its own payloads, and reports usage", async () => {
    const t = await fresh();
    const c = await t.open();
    await migratePostgres(c);
    const gone = await seed(c, "gone");
    await seed(c, "kept");
    expect((await conversationUsagePg(c)).map((u) => u.sessionId)).toEqual(["gone", "kept"]);
    expect(await deleteConversationPg(c, gone.id)).toEqual({ conversationId: gone.id, sessionId: "gone", messages: 2, summaries: 1, payloads: 1 });
    expect(await deleteConversationPg(c, gone.id)).toBeNull();
    const left = await c.pool.query("SELECT (SELECT count(*) FROM messages)::int AS m, (SELECT count(*) FROM summaries)::int AS s, (SELECT count(*) FROM payloads)::int AS p");
    expect(left.rows[0]).toEqual({ m: 2, s: 1, p: 1 });
    // the hard-delete switch does not leak out of its transaction
    await expect(c.pool.query("DELETE FROM messages")).rejects.toThrow(/immutable/);
  });

  it("validates its options, naming the field", () => {
    expect(() => parsePostgresOptions({ url: "mysql://x" })).toThrow(/url: a postgres:\/\//);
    expect(() => parsePostgresOptions({ url: "postgres://x/y", schema: "Bad-Name" })).toThrow(/schema: a lower-case identifier/);
    expect(parsePostgresOptions({ url: "postgres://x/y" })).toMatchObject({ poolSize: 4, schema: "lcm" });
  });
});
