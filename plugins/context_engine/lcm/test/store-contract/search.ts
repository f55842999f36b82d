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
      expect(r.hits.some((h) => h.type === "summary" && h.summaryId === s.id)).toBe(true);
      const m = r.hits.find((h) => h.type === "message" && h.messageId === ids[3]);
      expect(m?.coveredBy).toEqual([s.id]);
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
