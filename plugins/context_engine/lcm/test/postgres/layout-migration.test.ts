import { afterEach, describe, expect, it } from "vitest";
import type { Message } from "@context-engine/core";
import { searchHistory } from "../../src/search/index.js";
import { encodeMessage } from "../../src/store/codec.js";
import { createRedactor } from "../../src/redact/redactor.js";
import { migratePostgres, POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION } from "../../src/store/postgres/migrations.js";
import { PostgresLcmStore } from "../../src/store/postgres/store.js";
import { POSTGRES_URL, postgresReachable, testSchema } from "./server.js";

const reachable = await postgresReachable();
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** Every shape the codec writes: plain text, tool calls, tool results, parts, a name, an extra key, NUL, CJK. */
const HISTORY: Message[] = [
  { role: "system", content: "You are a careful assistant." },
  { role: "user", content: "The payment service keeps timing out behind the gateway." },
  { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"src/gateway.ts"}' } }] },
  { role: "tool", tool_call_id: "call_1", content: "export const retries = 3; // gateway retry budget" },
  { role: "user", content: [{ type: "text", text: "first part about invoices" }, { type: "text", text: "second part" }] },
  { role: "user", name: "alice", content: "named speaker mentions reconciliation" },
  { role: "assistant", content: "an extra key rides along", refusal: null } as unknown as Message,
  { role: "user", content: "nul\u0000inside the ledger text" },
  { role: "user", content: "日本語のテキストで決済サービスの障害を説明します" },
  { role: "assistant", content: "" },
];

/** A row exactly as a version-4 store wrote it (ingest.ts before migration 5). */
function versionFourRow(m: Message) {
  const e = encodeMessage(m, createRedactor({}));
  return { e, values: [e.role, JSON.stringify(e.message), e.searchText.replace(/\u0000/g, ""), 3, e.hashHex, e.toolCallIds, e.toolCallId, e.redacted] };
}

describe.skipIf(!reachable)("PostgreSQL migration 5 (message text stored once)", () => {
  it("keeps every message and every search of a store written at version 4", async () => {
    const t = await testSchema(1);
    cleanups.push(t.drop);
    const conn = await t.open();
    expect(await migratePostgres(conn, POSTGRES_MIGRATIONS.filter((m) => m.version <= 4))).toBe(0);
    const conv = await conn.pool.query(
      "INSERT INTO conversations (session_id, created_at, updated_at, message_count, last_seq) VALUES ('old', 1, 1, $1, $2) RETURNING id",
      [HISTORY.length, HISTORY.length - 1],
    );
    const id = Number(conv.rows[0].id);
    const written = HISTORY.map(versionFourRow);
    for (const [seq, row] of written.entries()) {
      await conn.pool.query(
        `INSERT INTO messages (conversation_id, seq, role, message, body, tokens, created_at, hash, tool_call_ids, tool_call_id, redacted)
         VALUES ($1, $2, $3, $4::json, $5, $6, 1000 + $2, $7, $8, $9, $10)`,
        [id, seq, ...row.values],
      );
    }
    const before = (await conn.pool.query("SELECT pg_total_relation_size('messages') AS b")).rows[0].b;

    const store = await PostgresLcmStore.open({ url: POSTGRES_URL, schema: t.schema, poolSize: 1 });
    cleanups.unshift(() => store.close());
    expect((await conn.pool.query("SELECT max(version) AS v FROM lcm_migrations")).rows[0].v).toBe(POSTGRES_SCHEMA_VERSION);

    // every message reads back as written, key order included
    const stored = await store.getMessages(id);
    expect(stored.map((s) => JSON.stringify(s.message))).toEqual(written.map((w) => JSON.stringify(w.e.message)));
    expect(stored.map((s) => s.text)).toEqual(written.map((w) => w.values[2]));
    // the plain ones no longer carry their text twice
    const kept = (await conn.pool.query("SELECT seq, message::text AS m FROM messages ORDER BY seq")).rows.map((r) => r.m as string);
    expect(kept[1]).toBe("{}");
    expect(kept[3]).toBe("{}");
    expect(JSON.parse(kept[5]!)).toEqual({ role: "user", name: "alice" });
    expect(kept[7]).toContain("ledger"); // NUL in the content: the json keeps it whole
    expect(Number((await conn.pool.query("SELECT pg_total_relation_size('messages') AS b")).rows[0].b)).toBeLessThanOrEqual(Number(before) * 2);

    // searches: words (stemmed), a tool call's arguments, CJK, a regex
    const seqs = async (query: string, mode?: "regex") => (await searchHistory(store, { query, conversationId: id, mode })).hits.map((h) => h.seq).sort();
    expect(await seqs("timing")).toEqual([1]);
    expect(await seqs("gateway")).toEqual([1, 2, 3]);
    expect(await seqs("invoices")).toEqual([4]);
    expect(await seqs("reconciliation")).toEqual([5]);
    expect(await seqs("ledger")).toEqual([7]);
    expect(await seqs("決済サービス")).toEqual([8]);
    expect(await seqs("retr(y|ies) budget", "regex")).toEqual([3]);

    // the same list sent again after the upgrade is recognised, not stored twice; new turns append
    const again = await store.ingest(id, [...HISTORY, { role: "user", content: "a new turn after the upgrade" }]);
    expect(again.appended).toBe(1);
    const after = await store.getMessages(id);
    expect(after).toHaveLength(HISTORY.length + 1);
    expect(after.at(-1)!.message).toEqual({ role: "user", content: "a new turn after the upgrade" });
    expect(await seqs("upgrade")).toEqual([HISTORY.length]);
    await expect(conn.pool.query("UPDATE messages SET body = 'x' WHERE conversation_id = $1", [id])).rejects.toThrow(/immutable/);
  });

  it("round-trips every message shape through a store created at the newest version", async () => {
    const t = await testSchema(1);
    cleanups.push(t.drop);
    const store = await PostgresLcmStore.open({ url: POSTGRES_URL, schema: t.schema, poolSize: 1 });
    cleanups.unshift(() => store.close());
    const conv = await store.conversation("fresh");
    await store.ingest(conv.id, HISTORY);
    const stored = await store.getMessages(conv.id);
    expect(stored.map((s) => JSON.stringify(s.message))).toEqual(HISTORY.map((m) => JSON.stringify(encodeMessage(m, createRedactor({})).message)));
    expect((await searchHistory(store, { query: "日本語", conversationId: conv.id })).hits.map((h) => h.seq)).toEqual([8]);
  });
});
