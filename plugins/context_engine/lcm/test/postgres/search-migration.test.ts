import { afterEach, describe, expect, it } from "vitest";
import { searchHistory } from "../../src/search/index.js";
import { migratePostgres, POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION } from "../../src/store/postgres/migrations.js";
import { PostgresLcmStore } from "../../src/store/postgres/store.js";
import { POSTGRES_URL, postgresReachable, testSchema } from "./server.js";

const reachable = await postgresReachable();
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe.skipIf(!reachable)("PostgreSQL migration 3 (search normalised as on SQLite)", () => {
  it("re-indexes a database written at version 2, which then answers like FTS5", async () => {
    const t = await testSchema(1);
    cleanups.push(t.drop);
    const conn = await t.open();
    expect(await migratePostgres(conn, POSTGRES_MIGRATIONS.filter((m) => m.version <= 2))).toBe(0);
    // rows as a version-2 store wrote them (english configuration: 'between' was a stop word, no accent folding)
    const conv = await conn.pool.query("INSERT INTO conversations (session_id, created_at, updated_at, message_count, last_seq) VALUES ('old', 1, 1, 2, 1) RETURNING id");
    const id = Number(conv.rows[0].id);
    for (const [seq, body] of ["meet between the Café and the docs.example.com server", "unrelated"].entries()) {
      await conn.pool.query("INSERT INTO messages (conversation_id, seq, role, message, body, tokens, created_at, hash) VALUES ($1, $2, 'user', $3, $4, 1, 1, $5)", [
        id, seq, JSON.stringify({ role: "user", content: body }), body, `h${seq}`,
      ]);
    }
    expect((await conn.pool.query("SELECT 1 FROM messages WHERE search @@ plainto_tsquery('english', 'between')")).rows).toHaveLength(0);

    const store = await PostgresLcmStore.open({ url: POSTGRES_URL, schema: t.schema, poolSize: 1 });
    cleanups.unshift(() => store.close());
    const { rows } = await conn.pool.query("SELECT max(version) AS v FROM lcm_migrations");
    expect(rows[0].v).toBe(POSTGRES_SCHEMA_VERSION);
    for (const query of ["between", "cafe", "café", "docs", "example", "servers"]) {
      expect((await searchHistory(store, { query, conversationId: id })).hits.map((h) => h.seq), query).toEqual([0]);
    }
    // history stays immutable after the re-index
    await expect(conn.pool.query("UPDATE messages SET body = 'x' WHERE conversation_id = $1", [id])).rejects.toThrow(/immutable/);
  });
});
