import { sqliteHandle } from "../../src/store/sqlite/store.js";
import { afterEach, describe, expect, it } from "vitest";
import { deleteConversation } from "../../src/retention/index.js";
import { searchHistory } from "../../src/search/index.js";
import { openLcmStore } from "../../src/store/index.js";
import { tempStore, user } from "../helpers.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

describe("write-behind full-text indexing", () => {
  it("queues bulk imports, indexes in bounded slices, and never lets a search miss them", async () => {
    const t = tempStore();
    cleanups.push(t.cleanup);
    const c = t.store.conversation("bulk");
    const msgs = Array.from({ length: 50 }, (_, i) => user(`imported line ${i} zebra${i}`));
    t.store.ingest(c.id, msgs, { mode: "append", index: "deferred" });
    expect(t.store.stats().pendingIndex).toBe(50);
    expect(t.store.indexPending({ maxRows: 20 })).toEqual({ indexed: 20, remaining: 30 });
    // a search indexes whatever is still queued first
    expect((await searchHistory(t.store, { query: "zebra3", conversationId: c.id })).hits).toHaveLength(1);
    expect((await searchHistory(t.store, { query: "zebra49", conversationId: c.id })).hits).toHaveLength(1);
    expect(t.store.stats().pendingIndex).toBe(0);
    expect(t.store.indexPending()).toEqual({ indexed: 0, remaining: 0 });
  });

  it("hard delete of a conversation with queued rows keeps the index consistent", async () => {
    const t = tempStore();
    cleanups.push(t.cleanup);
    const a = t.store.conversation("a");
    const b = t.store.conversation("b");
    t.store.ingest(a.id, [user("indexed alpha"), user("indexed 静默模式")]);
    t.store.ingest(a.id, [user("queued alpha"), user("queued 静默模式")], { mode: "append", index: "deferred" });
    t.store.ingest(b.id, [user("queued beta")], { mode: "append", index: "deferred" });
    await deleteConversation(t.store, a.id);
    expect(t.store.stats().pendingIndex).toBe(1);
    expect((await searchHistory(t.store, { query: "alpha", conversationId: null })).hits).toHaveLength(0);
    expect((await searchHistory(t.store, { query: "beta", conversationId: null })).hits).toHaveLength(1);
    // (integrity-check compares the index with every content row, so it only applies once nothing is queued)
    expect(t.store.stats().pendingIndex).toBe(0);
    expect(() => sqliteHandle(t.store).prepare("INSERT INTO messages_fts (messages_fts, rank) VALUES ('integrity-check', 1)").run()).not.toThrow();
  });
});

describe("automatic indexing mode", () => {
  it("defers a large import, indexes small ingests at once and drains the backlog on later small ones", async () => {
    const t = tempStore();
    cleanups.push(t.cleanup);
    const c = t.store.conversation("auto");
    t.store.ingest(c.id, Array.from({ length: 600 }, (_, i) => user(`bulk ${i}`)), { mode: "append" });
    expect(t.store.stats().pendingIndex).toBe(600);
    t.store.ingest(c.id, [user("one more")], { mode: "append" });
    expect(t.store.stats().pendingIndex).toBeLessThan(600);
    while (t.store.stats().pendingIndex > 0) t.store.ingest(c.id, [user("tick")], { mode: "append" });
    expect((await searchHistory(t.store, { query: "bulk", conversationId: c.id, limit: 100, sort: "recency" })).hits).toHaveLength(100);
  });

  it("keeps a bulk import's queue across a restart: the reopened store drains it and a search finds every message", async () => {
    const t = tempStore();
    cleanups.push(t.cleanup);
    const c = t.store.conversation("restart");
    t.store.ingest(c.id, Array.from({ length: 700 }, (_, i) => user(`first turn line ${i} quokka${i}`)), { mode: "append" });
    expect(t.store.indexPending({ maxRows: 100 })).toEqual({ indexed: 100, remaining: 600 });
    t.store.close();
    const reopened = openLcmStore({ dataDir: t.dir });
    try {
      expect(reopened.stats().pendingIndex).toBe(600);
      let slices = 0;
      while (reopened.indexPending({ maxRows: 250 }).remaining > 0) slices++;
      expect(slices).toBe(2);
      expect(reopened.stats().pendingIndex).toBe(0);
      for (const i of [0, 99, 100, 699]) {
        expect((await searchHistory(reopened, { query: `quokka${i}`, conversationId: c.id })).hits, `quokka${i}`).toHaveLength(1);
      }
    } finally {
      reopened.close();
    }
  });
});
