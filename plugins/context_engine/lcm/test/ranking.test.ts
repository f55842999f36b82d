import { afterEach, describe, expect, it } from "vitest";
import { searchHistory } from "../src/search/index.js";
import { asst, tempStore, user } from "./helpers.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

function store() {
  const t = tempStore({ redaction: false });
  cleanups.push(t.cleanup);
  return t.store;
}

describe("relevance over every match", () => {
  it("finds the best match when it is the oldest of thousands (no newest-N window)", async () => {
    const s = store();
    const c = s.conversation("big");
    const msgs = [user("Caroline adopted a rescue dog named Biscuit")];
    for (let i = 0; i < 3_000; i++) msgs.push(asst(`Caroline mentioned item ${i} of the weekly report and more unrelated filler text here`));
    s.ingest(c.id, msgs, { mode: "append" });
    const r = await searchHistory(s, { query: "What did Caroline name her dog?", conversationId: c.id });
    expect(r.hits[0]!.seq).toBe(0);
    expect(r.complete).toBe(true);
    expect(r.notes.join(" ")).toMatch(/ignored common words: What, did, her/);
  });

  it("neighbour context: a match next to a turn that matches other words ranks higher; non-matching neighbours are no hits", async () => {
    const s = store();
    const c = s.conversation("n");
    const filler = Array.from({ length: 6 }, (_, i) => asst(`filler line number ${i} about lunch`));
    const msgs = [user("where did we go hiking on saturday"), asst("tam was great today"), ...filler, asst("tam was great again")];
    s.ingest(c.id, msgs, { mode: "append" });
    const withContext = (await searchHistory(s, { query: "hiking tam", conversationId: c.id })).hits.map((h) => h.seq);
    expect(withContext.slice(0, 2)).toEqual([0, 1]);
    expect(withContext).toEqual([0, 1, 8]);
    const own = (await searchHistory(s, { query: "hiking tam", conversationId: c.id, neighbourWeight: 0 })).hits.map((h) => h.seq);
    expect(own.indexOf(8)).toBeLessThan(own.indexOf(1));
  });

  it("neighbour context lends only missing words: repeating a message's own word adds nothing", async () => {
    const s = store();
    const c = s.conversation("own");
    const msgs = [asst("zephyr zephyr wind"), asst("calm lunch notes"), asst("zephyr gust wind"), asst("zephyr gust wind"), asst("zephyr gust wind")];
    s.ingest(c.id, msgs, { mode: "append" });
    // Each of #2–#4 has zephyr neighbours, but they lend no word the message lacks: #0 (tf 2) stays first.
    expect((await searchHistory(s, { query: "zephyr", conversationId: c.id })).hits[0]!.seq).toBe(0);
    expect((await searchHistory(s, { query: "zephyr wind", conversationId: c.id })).hits[0]!.seq).toBe(0);
  });

  it("recency boost reorders near-ties but never drops a match; exclude_in_context leaves out the active context", async () => {
    const s = store();
    const c = s.conversation("r");
    const day = 86_400_000;
    const msgs = [user("deploy deploy failed"), ...Array.from({ length: 200 }, (_, i) => asst(`note ${i} about lunch`)), user("deploy failed")];
    s.ingest(c.id, msgs, { timestamps: msgs.map((_, i) => 1_700_000_000_000 + i * day) });
    const plain = (await searchHistory(s, { query: "deploy", conversationId: c.id })).hits.map((h) => h.seq);
    expect(plain).toEqual([0, 201]);
    const boosted = (await searchHistory(s, { query: "deploy", conversationId: c.id, recencyBoost: 1 })).hits.map((h) => h.seq);
    expect(boosted).toEqual([201, 0]);
    // Every message is in the active context here (nothing compacted).
    expect((await searchHistory(s, { query: "deploy", conversationId: c.id, excludeInContext: true })).hits).toEqual([]);
  });

  it("scores summaries on the messages' scale: a summary with the rare word outranks messages with the common one", async () => {
    const s = store();
    const c = s.conversation("sum");
    const ids = s.ingest(c.id, Array.from({ length: 40 }, (_, i) => user(`the deploy step ${i} went fine`))).ids as number[];
    const items = s.getFrontier(c.id).items.slice(0, 2);
    const leaf = s.commitSummary(
      { conversationId: c.id, kind: "leaf", depth: 0, content: "Deploy steps 0-1; the zanzibar cluster was chosen.", tokens: 10, sourceMessageIds: ids.slice(0, 2) },
      { fromOrdinal: items[0]!.ordinal, toOrdinal: items[1]!.ordinal, expect: items },
    );
    if (!leaf.ok) throw new Error(leaf.detail);
    const r = await searchHistory(s, { query: "zanzibar deploy", conversationId: c.id });
    expect(r.hits[0]!.type).toBe("summary");
    expect(r.hits[0]!.score!).toBeGreaterThan(r.hits[1]!.score! * 2);
    expect(r.hits.slice(1).every((h) => h.type === "message")).toBe(true);
  });
});
