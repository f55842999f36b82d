import { afterEach, describe, expect, it } from "vitest";
import { applyRetention, deleteSession } from "../../src/retention/index.js";
import { searchHistory } from "../../src/search/index.js";
import { storeScope, type StoreContractOptions } from "./factory.js";
import { asst, user } from "./msgs.js";
import { leaf, sevenMessages } from "./summaries.js";

export function retentionContract(options: StoreContractOptions): void {
  describe("hard delete and retention", () => {
    const scope = storeScope(options);
    afterEach(() => scope.disposeAll());

    it("deletes a conversation with its summaries, frontier and index entries, and nothing of the others", async () => {
      const store = await scope.open();
      const { conv, ids } = await sevenMessages(store, "gone");
      await store.ingest(conv.id, [user("apple pie recipe")], { mode: "append" });
      await leaf(store, conv.id, ids, 1, 2, "apple summary");
      const keep = await store.conversation("kept");
      await store.ingest(keep.id, [user("banana bread"), asst("apple too")]);
      const report = await store.deleteConversation(conv.id);
      expect(report).toMatchObject({ conversationId: conv.id, sessionId: "gone", messages: 8, summaries: 1 });
      expect(await store.findConversation("gone")).toBeNull();
      expect(await store.getMessage(ids[1]!)).toBeNull();
      const hits = await searchHistory(store, { query: "apple", conversationId: null });
      expect(hits.hits.map((h) => h.sessionId)).toEqual(["kept"]);
      expect(await store.deleteConversation(conv.id)).toBeNull();
      expect((await store.getMessages(keep.id)).length).toBe(2);
    });

    it("reports each conversation's size, least recently updated first", async () => {
      const store = await scope.open();
      const a = await store.conversation("a");
      await store.ingest(a.id, [user("12345")]);
      const b = await store.conversation("b");
      await store.ingest(b.id, [user("1234567890")]);
      const usage = await store.conversationUsage();
      expect(usage.map((u) => u.sessionId)).toEqual(["a", "b"]);
      expect(usage[1]!.textBytes).toBeGreaterThan(usage[0]!.textBytes);
    });

    it("applies a count policy, oldest first, never the protected session", async () => {
      const store = await scope.open();
      for (const s of ["old", "mid", "new"]) await store.ingest((await store.conversation(s)).id, [user(`hello ${s}`)]);
      const report = await applyRetention(store, { maxConversations: 2, protect: ["old"] });
      expect(report.deleted.map((d) => d.sessionId)).toEqual(["mid"]);
      expect(await deleteSession(store, "missing")).toBeNull();
      expect((await store.listConversations()).map((c) => c.sessionId).sort()).toEqual(["new", "old"]);
    });
  });
}
