import { afterEach, describe, expect, it } from "vitest";
import { searchHistory } from "../../src/search/index.js";
import { PostgresLcmStore } from "../../src/store/postgres/store.js";
import { PG_STORE_REST_MS } from "../../src/store/postgres/rest.js";
import { asst, user } from "../helpers.js";
import { POSTGRES_URL, postgresReachable, testSchema } from "./server.js";

const reachable = await postgresReachable();
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Bytes of a table with its indexes and its free-space and visibility maps. */
async function tableBytes(store: PostgresLcmStore, table: string): Promise<number> {
  return Number((await PostgresLcmStore.poolOf(store).query("SELECT pg_total_relation_size($1::regclass) AS b", [table])).rows[0].b);
}

/** A conversation of 40 turns whose frontier is rewritten after each one: thousands of dead frontier and position rows. */
async function churn(store: PostgresLcmStore, turns = 40): Promise<{ conv: number; ids: number[] }> {
  const conv = (await store.conversation("rest")).id;
  const ids: number[] = [];
  for (let t = 0; t < turns; t++) {
    const r = await store.ingest(conv, [user(`turn ${t} asks about deploy ${t} and kenobi${t}`), asst(`answer ${t}: the canary of turn ${t} passed`)], { mode: "append" });
    ids.push(...r.ids.filter((id): id is number => id !== null));
    // Every message of the conversation in the frontier, again: one compaction's rewrite.
    await store.setFrontier(conv, ids.map((messageId) => ({ kind: "message" as const, messageId })));
  }
  return { conv, ids };
}

describe.skipIf(!reachable)("the PostgreSQL store at rest", () => {
  it("gives the dead rows of the frontier back once writes pause, and answers as before", { timeout: 120_000 }, async () => {
    const t = await testSchema(1);
    cleanups.push(t.drop);
    const store = await PostgresLcmStore.open({ url: POSTGRES_URL, schema: t.schema, poolSize: 2 });
    cleanups.unshift(() => store.close());
    const { conv, ids } = await churn(store);
    const written = await tableBytes(store, "frontier");
    // 40 rewrites of up to 80 rows: more than a thousand dead rows, many pages.
    expect(written).toBeGreaterThan(64 * 1024);
    // The rest comes on its own once writes pause (polled: how long the server takes is not the point).
    await sleep(PG_STORE_REST_MS);
    let rested = written;
    for (let i = 0; i < 200 && rested >= written / 2; i++) {
      await sleep(100);
      rested = await tableBytes(store, "frontier");
    }
    expect(rested).toBeLessThan(written / 2);
    const frontier = await store.getFrontier(conv);
    expect(frontier.items.map((i) => (i.kind === "message" ? i.messageId : null))).toEqual(ids);
    expect(frontier.count).toBe(80);
    const hits = await searchHistory(store, { query: "kenobi39", conversationId: conv });
    expect(hits.hits.map((h) => h.seq)).toEqual([78]);
    // Writing after the rest works as before.
    await store.ingest(conv, [user("after the rest")], { mode: "append" });
    expect((await store.getMessageBySeq(conv, 80))?.message).toEqual(user("after the rest"));
  });

  it("compact() does the rest work at once and reports the smaller schema", { timeout: 120_000 }, async () => {
    const t = await testSchema(1);
    cleanups.push(t.drop);
    const store = await PostgresLcmStore.open({ url: POSTGRES_URL, schema: t.schema, poolSize: 2 });
    cleanups.unshift(() => store.close());
    const { conv } = await churn(store);
    const before = (await store.stats()).fileBytes;
    const frontierBefore = await tableBytes(store, "frontier");
    const { fileBytes } = await store.compact();
    expect(fileBytes).toBeLessThan(before);
    expect(await tableBytes(store, "frontier")).toBeLessThan(frontierBefore / 2);
    expect((await store.getFrontier(conv)).count).toBe(80);
    // Closing right after a write (a rest still pending) neither throws nor leaves work running.
    await store.ingest(conv, [user("last words")], { mode: "append" });
    await store.close();
    expect(store.isOpen).toBe(false);
  });
});
