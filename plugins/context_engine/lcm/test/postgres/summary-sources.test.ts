import { afterEach, describe, expect, it } from "vitest";
import { searchHistory } from "../../src/search/index.js";
import { migratePostgres, POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION } from "../../src/store/postgres/migrations.js";
import { PostgresLcmStore } from "../../src/store/postgres/store.js";
import { POSTGRES_URL, postgresReachable, testSchema } from "./server.js";
import { SEEDED_QUERIES, seededMessages, seededSummaryPlan } from "../seeded-history.js";

const reachable = await postgresReachable();
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe.skipIf(!reachable)("PostgreSQL migration 7 (summary sources keyed by rid)", () => {
  it("moves every source of a version-6 store in its order; lineage, coverage and summary search answer as before", async () => {
    const t = await testSchema(1);
    cleanups.push(t.drop);
    const conn = await t.open();
    expect(await migratePostgres(conn, POSTGRES_MIGRATIONS.filter((m) => m.version <= 6))).toBe(0);
    const q = (sql: string, values?: unknown[]) => conn.pool.query(sql, values);
    const conv = Number((await q("INSERT INTO conversations (session_id, created_at, updated_at) VALUES ('old', 1, 1) RETURNING id")).rows[0].id);
    const ids: number[] = [];
    for (let seq = 0; seq < 6; seq++) {
      const r = await q(
        "INSERT INTO messages (conversation_id, seq, role, message, body, tokens, created_at, hash) VALUES ($1, $2, 'user', '{}', $3, 5, $4, $5) RETURNING id",
        [conv, seq, `message ${seq} about the gateway`, 1000 + seq, `h${seq}`],
      );
      ids.push(Number(r.rows[0].id));
    }
    const summary = (id: string, kind: string, depth: number, content: string, first: number, last: number) =>
      q(
        `INSERT INTO summaries (id, conversation_id, kind, depth, content, tokens, level, earliest_at, latest_at, first_seq, last_seq, descendant_messages, source_tokens, created_at)
         VALUES ($1, $2, $3, $4, $5, 5, 'normal', 1, 2, $6, $7, 3, 10, 3)`,
        [id, conv, kind, depth, content, first, last],
      );
    await summary("sum_a1", "leaf", 0, "the first leaf: 決済サービスの障害", 0, 2);
    await summary("sum_a2", "leaf", 0, "the second leaf about retries", 2, 5);
    await summary("sum_c1", "condensed", 1, "both leaves", 0, 5);
    const sources: Array<[string, number, number]> = [
      ["sum_a1", ids[0]!, 0], ["sum_a1", ids[1]!, 1], ["sum_a1", ids[2]!, 2],
      ["sum_a2", ids[5]!, 0], ["sum_a2", ids[2]!, 1], ["sum_a2", ids[3]!, 2], ["sum_a2", ids[4]!, 3],
    ];
    for (const s of sources) await q("INSERT INTO summary_messages (summary_id, message_id, ordinal) VALUES ($1, $2, $3)", s);
    await q("INSERT INTO summary_children (summary_id, child_id, ordinal) VALUES ('sum_c1', 'sum_a1', 0), ('sum_c1', 'sum_a2', 1)");

    const store = await PostgresLcmStore.open({ url: POSTGRES_URL, schema: t.schema, poolSize: 1 });
    cleanups.unshift(() => store.close());
    expect((await q("SELECT max(version) AS v FROM lcm_migrations")).rows[0].v).toBe(POSTGRES_SCHEMA_VERSION);
    const moved = await q("SELECT s.id, ss.message_id, ss.ordinal FROM summary_sources ss JOIN summaries s ON s.rid = ss.summary_rid ORDER BY s.id, ss.ordinal");
    expect(moved.rows.map((r) => [r.id, Number(r.message_id), r.ordinal])).toEqual(sources);
    expect((await q("SELECT to_regclass('summary_messages') AS t, to_regclass('summaries_trgm') AS i")).rows[0]).toEqual({ t: null, i: null });

    expect((await store.lineage("sum_a2")).messageIds).toEqual([2, 3, 4, 5].map((s) => ids[s]));
    expect(await store.summariesCoveringMessage(ids[2]!)).toEqual(["sum_a1", "sum_a2"]);
    expect(await store.descendantMessageIds("sum_c1")).toEqual(ids);
    await expect(q("DELETE FROM summary_sources")).rejects.toThrow(/immutable/);
    // Summaries are still found by their words, and by CJK text without the trigram index.
    const words = await searchHistory(store, { query: "retries", conversationId: conv, scope: "summaries" });
    expect(words.hits.map((h) => h.summaryId)).toContain("sum_a2");
    const cjk = await searchHistory(store, { query: "決済サービス", conversationId: conv, scope: "summaries" });
    expect(cjk.hits.map((h) => h.summaryId)).toContain("sum_a1");

    // A summary committed after the migration.
    await q("INSERT INTO frontier (conversation_id, ordinal, message_id, tokens) SELECT $1, seq, id, 5 FROM messages WHERE conversation_id = $1", [conv]);
    const late = await store.commitSummary({ conversationId: conv, kind: "leaf", depth: 0, content: "late leaf", tokens: 3, sourceMessageIds: [ids[4]!, ids[5]!] });
    if (!late.ok) throw new Error(late.detail);
    expect((await store.lineage(late.summary.id)).messageIds).toEqual([ids[4], ids[5]]);
    expect(await store.summariesCoveringMessage(ids[5]!)).toEqual([late.summary.id, "sum_a2"].sort());
  });

  it("a seeded store answers every search and lineage read the same before and after the migration", async () => {
    const t = await testSchema(1);
    cleanups.push(t.drop);
    const conn = await t.open();
    const q = (sql: string, values?: unknown[]) => conn.pool.query(sql, values);
    let store = await PostgresLcmStore.open({ url: POSTGRES_URL, schema: t.schema, poolSize: 1 });
    const conv = await store.conversation("seeded");
    const messages = seededMessages();
    for (let i = 0; i < messages.length; i += 2) await store.ingest(conv.id, messages.slice(i, i + 2), { mode: "append" });
    const ids = (await q("SELECT id FROM messages WHERE conversation_id = $1 ORDER BY seq", [conv.id])).rows.map((r) => Number(r.id));
    const plan = seededSummaryPlan(messages.length);
    const leafIds: string[] = [];
    for (const l of plan.leaves) {
      const r = await store.commitSummary({ conversationId: conv.id, kind: "leaf", depth: 0, content: l.content, tokens: 10, sourceMessageIds: ids.slice(l.from, l.to + 1) });
      if (!r.ok) throw new Error(r.detail);
      leafIds.push(r.summary.id);
    }
    for (const [n, group] of plan.condensed.entries()) {
      const r = await store.commitSummary({ conversationId: conv.id, kind: "condensed", depth: 1, content: `condensed ${n}: gateway review`, tokens: 10, childSummaryIds: group.map((i) => leafIds[i]!) });
      if (!r.ok) throw new Error(r.detail);
    }
    const snapshot = async (s: PostgresLcmStore) => ({
      searches: await Promise.all(SEEDED_QUERIES.map((x) => searchHistory(s, { ...x, conversationId: conv.id }))),
      lineage: await Promise.all(leafIds.map((id) => s.lineage(id))),
      covering: await Promise.all(ids.map((id) => s.summariesCoveringMessage(id))),
    });
    // Before: with the whole-summary trigram index version 6 had.
    await q("CREATE INDEX summaries_trgm ON summaries USING gin (content public.gin_trgm_ops)");
    const before = await snapshot(store);
    expect(before.searches.map((r, i) => [SEEDED_QUERIES[i]!.query, r.hits.length > 0])).toEqual(SEEDED_QUERIES.map((x) => [x.query, true]));
    await store.close();

    // The schema laid out as version 6 wrote it, then opened again: migration 7 runs.
    await q(`
      CREATE TABLE summary_messages (summary_id text NOT NULL REFERENCES summaries (id), message_id bigint NOT NULL REFERENCES messages (id), ordinal integer NOT NULL, PRIMARY KEY (summary_id, message_id));
      CREATE INDEX summary_messages_message ON summary_messages (message_id);
      INSERT INTO summary_messages SELECT s.id, ss.message_id, ss.ordinal FROM summary_sources ss JOIN summaries s ON s.rid = ss.summary_rid;
      DROP TABLE summary_sources;
      DELETE FROM lcm_migrations WHERE version >= 7;
    `);
    store = await PostgresLcmStore.open({ url: POSTGRES_URL, schema: t.schema, poolSize: 1 });
    cleanups.unshift(() => store.close());
    expect((await q("SELECT to_regclass('summaries_trgm') AS i")).rows[0].i).toBeNull();
    expect(await snapshot(store)).toEqual(before);
  });
});
