import { setImmediate as afterCurrentCall } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { searchHistory } from "../../src/search/index.js";
import { refreshStatistics, statisticsStale } from "../../src/store/sqlite/statistics.js";
import { sqliteHandle } from "../../src/store/sqlite/store.js";
import { tempStore, user } from "../helpers.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

const recorded = (t: ReturnType<typeof tempStore>) => {
  const db = sqliteHandle(t.store);
  if (!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'").get()) return null;
  const r = db.prepare("SELECT stat FROM sqlite_stat1 WHERE tbl = 'messages' LIMIT 1").get() as { stat: string } | undefined;
  return r ? Number.parseInt(r.stat, 10) : null;
};

const planOfLiteralScan = (t: ReturnType<typeof tempStore>) =>
  (sqliteHandle(t.store)
    .prepare("EXPLAIN QUERY PLAN SELECT m.id FROM messages m WHERE m.id > ? AND m.id < ? AND +m.conversation_id = ? ORDER BY m.id DESC")
    .all(0, 10, 1) as Array<{ detail: string }>).map((r) => r.detail).join("; ");

describe("planner statistics while the store is open", () => {
  it("are written after a bulk import becomes searchable, without closing the store", async () => {
    const t = tempStore();
    cleanups.push(t.cleanup);
    const c = t.store.conversation("bulk");
    t.store.ingest(c.id, Array.from({ length: 1_200 }, (_, i) => user(`line ${i} of the imported history`)), { mode: "append", index: "deferred" });
    expect(recorded(t)).toBeNull();
    expect(t.store.indexPending().remaining).toBe(0);
    await afterCurrentCall();
    expect(recorded(t)).toBe(1_200);
    expect(statisticsStale(sqliteHandle(t.store))).toBe(false);
  });

  it("are rewritten by a search once the messages have doubled, and not before", async () => {
    const t = tempStore();
    cleanups.push(t.cleanup);
    const c = t.store.conversation("grown");
    const add = (n: number, from: number) => t.store.ingest(c.id, Array.from({ length: n }, (_, i) => user(`turn ${from + i} zebra`)), { mode: "append" });
    add(600, 0);
    await searchHistory(t.store, { query: "zebra", conversationId: c.id });
    await afterCurrentCall();
    expect(recorded(t)).toBe(600);
    add(500, 600); // 1,100: not yet twice as many
    await searchHistory(t.store, { query: "zebra", conversationId: c.id });
    await afterCurrentCall();
    expect(recorded(t)).toBe(600);
    add(200, 1_100);
    await searchHistory(t.store, { query: "zebra", conversationId: c.id });
    await afterCurrentCall();
    expect(recorded(t)).toBe(1_300);
  });

  it("leave a small store alone, and the literal scan uses the id range with or without them", () => {
    const t = tempStore();
    cleanups.push(t.cleanup);
    const c = t.store.conversation("small");
    t.store.ingest(c.id, Array.from({ length: 20 }, (_, i) => user(`m${i}`)));
    expect(refreshStatistics(sqliteHandle(t.store))).toBe(false);
    expect(planOfLiteralScan(t)).toMatch(/INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)/);
    expect(refreshStatistics(sqliteHandle(t.store), { force: true })).toBe(true);
    expect(planOfLiteralScan(t)).toMatch(/INTEGER PRIMARY KEY/);
  });

  it("never wait for another connection's write lock", () => {
    // A minute of busy timeout: waiting for the lock would outlast the test's own timeout.
    const t = tempStore({ busyTimeoutMs: 60_000 });
    cleanups.push(t.cleanup);
    const c = t.store.conversation("locked");
    t.store.ingest(c.id, Array.from({ length: 600 }, (_, i) => user(`m${i}`)));
    const db = sqliteHandle(t.store);
    const Other = db.constructor as new (path: string) => typeof db;
    const other = new Other(db.name);
    try {
      other.exec("BEGIN IMMEDIATE");
      expect(refreshStatistics(db)).toBe(false);
      other.exec("ROLLBACK");
      expect(refreshStatistics(db)).toBe(true);
      expect(db.pragma("busy_timeout", { simple: true })).toBe(60_000);
    } finally {
      other.close();
    }
  });
});
