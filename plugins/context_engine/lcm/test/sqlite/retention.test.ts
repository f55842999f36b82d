import { sqliteHandle } from "../../src/store/sqlite/store.js";
import { afterEach, describe, expect, it } from "vitest";
import { applyRetention, deleteConversation, deleteSession } from "../../src/retention/index.js";
import { searchHistory } from "../../src/search/index.js";
import { asst, call, result, tempStore, user } from "../helpers.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

function setup() {
  const t = tempStore({ payloadThresholdBytes: 512 });
  cleanups.push(t.cleanup);
  const { store } = t;
  const shared = "shared payload ".repeat(100);
  const mk = (session: string, word: string) => {
    const c = store.conversation(session);
    const ids = store.ingest(c.id, [
      user(`${word} question 静默模式 ${word}`),
      call(`${session}-1`, "read", { f: word }),
      result(`${session}-1`, shared),
      result(`${session}-2`, `${word} only here `.repeat(60)),
      asst(`${word} answer`),
    ]).ids as number[];
    const items = store.getFrontier(c.id).items.slice(0, 2);
    const s = store.commitSummary(
      { conversationId: c.id, kind: "leaf", depth: 0, content: `${word} summary`, tokens: 3, sourceMessageIds: ids.slice(0, 2) },
      { fromOrdinal: items[0]!.ordinal, toOrdinal: items[1]!.ordinal, expect: items },
    );
    if (!s.ok) throw new Error(s.detail);
    return c;
  };
  return { store, a: mk("a", "apple"), b: mk("b", "banana") };
}

describe("hard delete", () => {
  it("removes a conversation with its messages, parts, summaries, lineage, frontier, index entries and own payloads", async () => {
    const { store, a, b } = setup();
    expect(store.stats().payloads).toBe(3);
    const rep = await deleteConversation(store, a.id);
    expect(rep).toMatchObject({ sessionId: "a", messages: 5, summaries: 1, payloads: 1 });
    for (const table of ["messages", "summaries", "frontier"]) {
      expect((sqliteHandle(store).prepare(`SELECT count(*) AS n FROM ${table} WHERE conversation_id = ?`).get(a.id) as { n: number }).n).toBe(0);
    }
    expect((sqliteHandle(store).prepare("SELECT count(*) AS n FROM message_parts").get() as { n: number }).n).toBe(1);
    expect((sqliteHandle(store).prepare("SELECT count(*) AS n FROM summary_sources").get() as { n: number }).n).toBe(2);
    expect(store.stats().payloads).toBe(2); // the shared one is still used by b
    expect((await searchHistory(store, { query: "apple", conversationId: null })).hits).toHaveLength(0);
    expect((await searchHistory(store, { query: "静默模式", conversationId: null })).hits.map((h) => h.sessionId)).toEqual(["b"]);
    expect((await searchHistory(store, { query: "banana", conversationId: b.id })).hits.length).toBeGreaterThan(0);
    // the external-content indexes are consistent with their content
    // (messages_cjk indexes only CJK rows of its content view, so its integrity-check does not apply)
    for (const t of ["messages_fts", "summaries_fts"]) {
      expect(() => sqliteHandle(store).prepare(`INSERT INTO ${t} (${t}, rank) VALUES ('integrity-check', 1)`).run()).not.toThrow();
    }
    expect(store.findConversation("a")).toBeNull();
    expect((await deleteConversation(store, a.id))).toBeNull();
    expect((await deleteSession(store, "b"))?.messages).toBe(5);
    expect(store.stats().payloads).toBe(0);
  });
});

describe("retention policy", () => {
  it("deletes by age, count and size, oldest first, never the protected session", async () => {
    const { store, a, b } = setup();
    const c = store.conversation("c");
    store.ingest(c.id, [user("cherry")]);
    const now = Date.now();
    sqliteHandle(store).prepare("UPDATE conversations SET updated_at = ? WHERE id = ?").run(now - 40 * 86_400_000, a.id);
    sqliteHandle(store).prepare("UPDATE conversations SET updated_at = ? WHERE id = ?").run(now - 10 * 86_400_000, b.id);
    const age = await applyRetention(store, { maxAgeDays: 30, now });
    expect(age.deleted.map((d) => [d.sessionId, d.reason])).toEqual([["a", "age"]]);
    const count = await applyRetention(store, { maxConversations: 1, protect: ["c"], now });
    expect(count.deleted.map((d) => [d.sessionId, d.reason])).toEqual([["b", "count"]]);
    expect((await applyRetention(store, { maxConversations: 1, now })).deleted).toEqual([]);
    const size = await applyRetention(store, { maxBytes: 1, protect: ["c"], now });
    expect(size.deleted).toEqual([]);
    expect((await applyRetention(store, { maxBytes: 1, now })).deleted.map((d) => d.reason)).toEqual(["size"]);
    expect(store.listConversations()).toEqual([]);
  });
});

describe("compact", () => {
  it("gives the space of a deleted conversation back to the file system", async () => {
    const t = tempStore();
    cleanups.push(t.cleanup);
    const c = t.store.conversation("big");
    t.store.ingest(c.id, Array.from({ length: 400 }, (_, i) => user(`message ${i} ${"lorem ipsum dolor ".repeat(80)}`)));
    const before = t.store.compact().fileBytes;
    await deleteConversation(t.store, c.id);
    const after = t.store.compact().fileBytes;
    expect(after).toBeLessThan(before / 2);
  });
});
