import { afterEach, describe, expect, it } from "vitest";
import type { Message } from "@context-engine/core";
import { searchHistory } from "../../src/search/index.js";
import { ftsExpression, parseQuery } from "../../src/search/query.js";
import { encodeMessage } from "../../src/store/codec.js";
import { createRedactor } from "../../src/redact/redactor.js";
import { storedMessageJson } from "../../src/store/postgres/layout.js";
import { LCM_FOLD_SQL, migratePostgres, POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION } from "../../src/store/postgres/migrations.js";
import { RANKED_POOL } from "../../src/store/postgres/rank.js";
import { PostgresLcmStore } from "../../src/store/postgres/store.js";
import { rankSql, toTsQuery } from "../../src/store/postgres/tsquery.js";
import { POSTGRES_URL, postgresReachable, testSchema } from "./server.js";

const reachable = await postgresReachable();
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const WORDS = ["gateway", "payment", "retry", "timeout", "ledger", "invoice", "deploy", "cache", "schema", "worker"];

/** A deterministic history: words repeated and spaced differently, so counts and distances rank the rows. */
function history(n: number): Message[] {
  const out: Message[] = [
    { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"src/gateway.ts"}' } }] },
    { role: "tool", tool_call_id: "call_1", content: "export const retries = 3; // gateway retry budget" },
    { role: "user", content: "日本語のテキストで決済サービスの障害を説明します" },
    { role: "user", content: "the payment timeout came back: payment, then a long wait, then the timeout" },
    { role: "assistant", content: "a payment timeout again" },
  ];
  for (let i = 0; out.length < n; i++) {
    const words = Array.from({ length: 4 + (i % 9) }, (_, k) => WORDS[(i * 7 + k * k * 3) % WORDS.length]!);
    out.push({ role: i % 2 ? "assistant" : "user", content: `note ${i}: the ${words.join(" and the ")} went fine` });
  }
  return out;
}

const QUERIES = ["gateway", "payment timeout", "retry ledger invoice", '"payment timeout"', "deploy AND cache", "worker -schema", "invo*"];

describe.skipIf(!reachable)("PostgreSQL migration 8 (no stored message tsvector)", () => {
  it("keeps every row of a version-7 store and ranks every search as the stored vectors did", async () => {
    const t = await testSchema(1);
    cleanups.push(t.drop);
    const conn = await t.open();
    const q = (sql: string, values?: unknown[]) => conn.pool.query(sql, values);
    expect(await migratePostgres(conn, POSTGRES_MIGRATIONS.filter((m) => m.version <= 7))).toBe(0);
    // No more messages than the exactly ranked pool: every search ranks as before (the pool's own test is below).
    const messages = history(RANKED_POOL);
    const conv = Number((await q("INSERT INTO conversations (session_id, created_at, updated_at, message_count, last_seq) VALUES ('old', 1, 1, $1, $2) RETURNING id", [messages.length, messages.length - 1])).rows[0].id);
    for (const [seq, m] of messages.entries()) {
      const e = encodeMessage(m, createRedactor({}));
      const body = e.searchText.replace(/\u0000/g, "");
      await q(
        `INSERT INTO messages (conversation_id, seq, role, message, body, tokens, created_at, hash, tool_call_ids, tool_call_id, redacted)
         VALUES ($1, $2, $3, $4::json, $5, 3, 1000 + $2, $6, $7, $8, $9)`,
        [conv, seq, e.role, storedMessageJson(m, body), body, e.hashHex, e.toolCallIds, e.toolCallId, e.redacted],
      );
    }
    // Version 7's answers, from the stored vectors.
    const expressions = QUERIES.map((x) => ftsExpression(parseQuery(x)));
    const stored = async () => {
      const out: Array<Array<[number, number]>> = [];
      for (const expression of expressions) {
        const tq = toTsQuery(expression);
        const { rows } = await q(`SELECT id, ${rankSql("search", `(${tq.sql})`)} AS s FROM messages WHERE search @@ (${tq.sql}) ORDER BY s DESC, id DESC`, tq.params);
        out.push(rows.map((r) => [Number(r.id), Number(r.s)]));
      }
      return out;
    };
    const before = await stored();
    expect(before.map((rows) => rows.length > 0)).toEqual(QUERIES.map(() => true));
    const rowsBefore = (await q("SELECT id, seq, role, message::text AS message, body, hash FROM messages ORDER BY id")).rows;

    const store = await PostgresLcmStore.open({ url: POSTGRES_URL, schema: t.schema, poolSize: 1 });
    cleanups.unshift(() => store.close());
    expect((await q("SELECT max(version) AS v FROM lcm_migrations")).rows[0].v).toBe(POSTGRES_SCHEMA_VERSION);
    expect((await q("SELECT count(*) AS n FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'messages' AND column_name = 'search'", [t.schema])).rows[0].n).toBe("0");
    expect((await q("SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'messages_search'", [t.schema])).rows[0].indexdef).toMatch(/to_tsvector/);
    expect((await q("SELECT id, seq, role, message::text AS message, body, hash FROM messages ORDER BY id")).rows).toEqual(rowsBefore);

    const search = store.searchStore();
    for (const [i, expression] of expressions.entries()) {
      const ranked = await search.rankMessages(expression, { conversationId: conv }, { limit: 1000, offset: 0 });
      expect(ranked.map((r) => [r.rowid, r.score]), QUERIES[i]).toEqual(before[i]);
      expect(await search.documentFrequency(expression)).toBe(before[i]!.length);
      const scored = await search.scoreMessages(expression, before[i]!.map(([id]) => id));
      expect([...scored].sort((a, b) => b[1] - a[1] || b[0] - a[0]), QUERIES[i]).toEqual(before[i]);
    }
    // Messages read back whole, and the searches of the tool still find their words, phrases and CJK text.
    const first = await searchHistory(store, { query: "budget", conversationId: conv });
    expect(first.hits.map((h) => h.seq)).toEqual([1]);
    const cjk = await searchHistory(store, { query: "決済サービス", conversationId: conv });
    expect(cjk.hits.map((h) => h.seq)).toEqual([2]);

    // Rows written after the migration are indexed too.
    await store.ingest(conv, [{ role: "user", content: "a fresh turn about the quokka gateway" }], { mode: "append" });
    expect((await searchHistory(store, { query: "quokka", conversationId: conv })).hits.map((h) => h.seq)).toEqual([messages.length]);
  });

  it("past the exactly ranked pool, ranks by distinct terms held below the pool, the same on every page", async () => {
    const t = await testSchema(1);
    cleanups.push(t.drop);
    const store = await PostgresLcmStore.open({ url: POSTGRES_URL, schema: t.schema, poolSize: 1 });
    cleanups.unshift(() => store.close());
    const conv = await store.conversation("pool");
    const extra = 40;
    // Every message says "gateway"; the newest `extra` say it twice; one old message also says "ledger" twice.
    const messages: Message[] = Array.from({ length: RANKED_POOL + extra }, (_, i) => ({
      role: "user",
      content: i === 3 ? "gateway ledger ledger" : i >= RANKED_POOL ? `gateway note ${i} gateway` : `gateway note ${i}`,
    }));
    for (let i = 0; i < messages.length; i += 50) await store.ingest(conv.id, messages.slice(i, i + 50), { mode: "append" });
    const search = store.searchStore();
    const expression = ftsExpression(parseQuery("gateway ledger"));
    const all = await search.rankMessages(expression, { conversationId: conv.id }, { limit: 10_000, offset: 0 });
    expect(all.length).toBe(messages.length);
    // The one holding both terms leads; then the exactly scored pool (two gateways outrank one), then the rest.
    const seqOf = new Map((await Promise.all(all.map(async (r) => [r.rowid, (await search.messageHits([r.rowid])).get(r.rowid)!.seq] as const))));
    expect(seqOf.get(all[0]!.rowid)).toBe(3);
    expect(all.slice(1, 1 + extra).every((r) => seqOf.get(r.rowid)! >= RANKED_POOL)).toBe(true);
    for (let i = 1; i < all.length; i++) expect(all[i]!.score).toBeLessThanOrEqual(all[i - 1]!.score);
    const paged = [];
    for (let offset = 0; offset < all.length; offset += 37) paged.push(...(await search.rankMessages(expression, { conversationId: conv.id }, { limit: 37, offset })));
    expect(paged).toEqual(all);
  });
  it("folds every text as migration 3's lcm_fold did", async () => {
    const t = await testSchema(1);
    cleanups.push(t.drop);
    const conn = await t.open();
    await migratePostgres(conn);
    const texts = [
      "", "plain ascii words, v2.3.4 and x_y-z", "Résumé naïve CAFÉ", "probably notably ably bly", "biology apologies theology logs blog",
      "a to I x9 ab abc", "w".repeat(64), `${"q".repeat(70)} end`, "決済サービスの障害 and ably", "ŁÓDŹ Straße İstanbul ǅ ﬁle",
      "tabs\tand\nnewlines\r\n", "emoji 🎉 probably", "ÉTYMOLOGIES of biologies", "Ab BLY-LOG", "mixed café_biology-notably 12",
    ];
    for (const text of texts) {
      const { rows } = await conn.pool.query(`SELECT (SELECT ${LCM_FOLD_SQL} FROM (SELECT $1::text AS t) x) AS before, lcm_fold($1) AS now`, [text]);
      expect(rows[0].now, text).toBe(rows[0].before);
    }
  });
});
