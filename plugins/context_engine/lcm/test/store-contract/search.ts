import { afterEach, describe, expect, it } from "vitest";
import { searchHistory } from "../../src/search/index.js";
import type { LcmStoreDriver } from "../../src/store/types.js";
import { storeScope, type StoreContractOptions } from "./factory.js";
import { asst, call, result, user } from "./msgs.js";
import { leaf } from "./summaries.js";

async function corpus(store: LcmStoreDriver) {
  const a = await store.conversation("a");
  const b = await store.conversation("b");
  const day = 86_400_000;
  const base = 1_700_000_000_000;
  const msgs = [
    user("the payment service keeps timing out"),
    asst("I will look at the retry logic of the payment service"),
    call("c1", "read_file", { path: "src/payment/retry.ts" }),
    result("c1", "export const MAX_RETRY_COUNT = 3; // timeout after 30s"),
    asst("MAX_RETRY_COUNT is 3; raising it will not fix the timeout"),
    user("静默模式下超时设置无效"),
    asst("deploy finished"),
  ];
  const r = await store.ingest(a.id, msgs, { timestamps: msgs.map((_, i) => base + i * day) });
  await store.ingest(b.id, [user("invoices are overdue"), asst("sending the invoices now")]);
  return { a, b, ids: r.ids as number[], base, day };
}

export function searchContract(options: StoreContractOptions): void {
  describe("search", () => {
    const scope = storeScope(options);
    afterEach(() => scope.disposeAll());

    it("ranks full-text matches in the conversation, best first, with snippets", async () => {
      const store = await scope.open();
      const { a, b, ids } = await corpus(store);
      const r = await searchHistory(store, { query: "timeout", conversationId: a.id });
      expect(r.hits.map((h) => h.messageId).sort()).toEqual([ids[3], ids[4]].sort());
      expect(r.hits.every((h) => (h.score ?? 0) > 0)).toBe(true);
      expect(r.hits[0]!.snippet).toContain("«");
      expect((await searchHistory(store, { query: "invoices", conversationId: a.id })).hits).toEqual([]);
      const all = await searchHistory(store, { query: "invoices", conversationId: null });
      expect(new Set(all.hits.map((h) => h.sessionId))).toEqual(new Set(["b"]));
      expect(all.hits.every((h) => h.conversationId === b.id)).toBe(true);
    });

    it("finds identifiers, tool-call arguments and phrases; honours NOT, AND, prefixes, roles, time and cursors", async () => {
      const store = await scope.open();
      const { a, ids, base, day } = await corpus(store);
      const q = (query: string, extra = {}) => searchHistory(store, { query, conversationId: a.id, ...extra });
      expect((await q("MAX_RETRY_COUNT")).hits.map((h) => h.messageId).sort()).toEqual([ids[3], ids[4]].sort());
      expect((await q("src/payment/retry.ts")).hits.map((h) => h.messageId)).toContain(ids[2]);
      expect((await q('"payment service"')).hits.map((h) => h.messageId).sort()).toEqual([ids[0], ids[1]].sort());
      expect((await q("payment -retry")).hits.map((h) => h.messageId)).toEqual([ids[0]]);
      expect((await q("payment AND timing", { scope: "messages" })).hits.map((h) => h.messageId)).toEqual([ids[0]]);
      expect((await q("retr*")).hits.length).toBeGreaterThanOrEqual(2);
      expect((await q("timeout", { roles: ["assistant"] })).hits.map((h) => h.messageId)).toEqual([ids[4]]);
      expect((await q("timeout", { since: base + 4 * day })).hits.map((h) => h.messageId)).toEqual([ids[4]]);
      const first = await q("timeout", { limit: 1 });
      expect(first.hits).toHaveLength(1);
      const second = await q("timeout", { limit: 1, cursor: first.nextCursor });
      expect(second.hits).toHaveLength(1);
      expect(second.hits[0]!.messageId).not.toBe(first.hits[0]!.messageId);
    });

    it("searches summaries and says which summary covers a compacted message", async () => {
      const store = await scope.open();
      const { a, ids } = await corpus(store);
      const s = await leaf(store, a.id, ids, 0, 4, "payment timeouts investigated: MAX_RETRY_COUNT is 3");
      const r = await searchHistory(store, { query: "MAX_RETRY_COUNT", conversationId: a.id });
      // Its source messages hold the word: in a mixed search they stand for the summary.
      expect(r.hits.some((h) => h.type === "summary")).toBe(false);
      const only = await searchHistory(store, { query: "MAX_RETRY_COUNT", conversationId: a.id, scope: "summaries" });
      expect(only.hits.some((h) => h.type === "summary" && h.summaryId === s.id)).toBe(true);
      // A word only the summary holds keeps it in a mixed search.
      const own = await searchHistory(store, { query: "investigated", conversationId: a.id });
      expect(own.hits.some((h) => h.type === "summary" && h.summaryId === s.id)).toBe(true);
      const m = r.hits.find((h) => h.type === "message" && h.messageId === ids[3]);
      expect(m?.coveredBy).toEqual([s.id]);
    });

    it("scores given ids, lists seq neighbours and tells a summary's own words (neighbour ranking operations)", async () => {
      const store = await scope.open();
      const { a, b, ids } = await corpus(store);
      const search = await store.searchStore();
      await search.indexPending({ maxMs: 1_000 });
      const scores = await search.scoreMessages('"payment"', [ids[0]!, ids[1]!, ids[6]!]);
      expect([...scores.keys()].sort()).toEqual([ids[0], ids[1]].sort());
      expect([...scores.values()].every((v) => v > 0)).toBe(true);
      const near = await search.messageNeighbours([ids[3]!], 2, { conversationId: a.id });
      expect(near.map((n) => [n.id, n.of, n.distance]).sort()).toEqual(
        [[ids[1], ids[3], 2], [ids[2], ids[3], 1], [ids[4], ids[3], 1], [ids[5], ids[3], 2]].sort(),
      );
      expect(near.every((n) => n.inScope)).toBe(true);
      // `before`: the neighbour comes earlier in the conversation (an answer's question is before it).
      expect(near.filter((n) => n.before).map((n) => n.id).sort()).toEqual([ids[1], ids[2]].sort());
      const other = await search.messageNeighbours([ids[3]!], 1, { conversationId: b.id });
      expect(other.map((n) => n.inScope)).toEqual([false, false]);
      await leaf(store, a.id, ids, 0, 4, "payment timeouts investigated: MAX_RETRY_COUNT is 3");
      const [sum] = await search.matchingSummaries('"investigated"', [], { conversationId: a.id }, 5);
      expect(await search.summaryAlone(sum!.rowid, '"investigated"')).toBe(true);
      expect(await search.summaryAlone(sum!.rowid, '"payment"')).toBe(false);
      expect(await search.summaryAlone(sum!.rowid, '"invoices"')).toBe(false);
    });

    it("neighbour context: a match next to a turn holding the other query word ranks higher", async () => {
      const store = await scope.open();
      const c = await store.conversation("n");
      const filler = Array.from({ length: 6 }, (_, i) => asst(`filler line number ${i} about lunch`));
      await store.ingest(c.id, [user("where did we go hiking on saturday"), asst("tam was great today"), ...filler, asst("tam was great again")]);
      const withContext = (await searchHistory(store, { query: "hiking tam", conversationId: c.id })).hits.map((h) => h.seq);
      // Both turns of the exchange outrank the lone later mention; their order is the driver's (BM25 idf vs ts_rank_cd).
      expect(withContext.slice(0, 2).sort()).toEqual([0, 1]);
      expect(withContext).toHaveLength(3);
      expect(withContext[2]).toBe(8);
      const own = (await searchHistory(store, { query: "hiking tam", conversationId: c.id, neighbourWeight: 0 })).hits.map((h) => h.seq);
      expect(own.indexOf(8)).toBeLessThan(own.indexOf(1));
    });

    it("matches a regex over content and tool calls, newest first", async () => {
      const store = await scope.open();
      const { a, ids } = await corpus(store);
      const r = await searchHistory(store, { query: "MAX_RETRY_COUNT\\s*=\\s*\\d+", mode: "regex", conversationId: a.id });
      expect(r.hits.map((h) => h.messageId)).toEqual([ids[3]]);
      expect((await searchHistory(store, { query: "retry\\.ts", mode: "regex", conversationId: a.id })).hits.map((h) => h.messageId)).toEqual([ids[2]]);
    });

    it.skipIf(!options.features.regexNarrowing)("narrows a regex scan by a word it requires (feature: regexNarrowing)", async () => {
      const store = await scope.open();
      const { a, ids } = await corpus(store);
      const r = await searchHistory(store, { query: "\\bpayment\\s+service\\b", mode: "regex", conversationId: a.id, scope: "messages" });
      expect(r.notes.some((n) => n.includes("narrowed by the index"))).toBe(true);
      expect(r.hits.map((h) => h.messageId)).toEqual([ids[1], ids[0]]);
    });

    it.skipIf(!options.features.trigram)("finds CJK text by substring, including two-character words (feature: trigram)", async () => {
      const store = await scope.open();
      const { a, ids } = await corpus(store);
      expect((await searchHistory(store, { query: "静默模式", conversationId: a.id })).hits.map((h) => h.messageId)).toEqual([ids[5]]);
      expect((await searchHistory(store, { query: "超时", conversationId: a.id })).hits.map((h) => h.messageId)).toEqual([ids[5]]);
    });
  });
}
