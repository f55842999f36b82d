import { afterEach, describe, expect, it } from "vitest";
import { storeScope, type StoreContractOptions } from "./factory.js";
import { user } from "./msgs.js";

export function conversationsContract(options: StoreContractOptions): void {
  describe("conversations", () => {
    const scope = storeScope(options);
    afterEach(() => scope.disposeAll());

    it("gets or creates one conversation per session id, with counters", async () => {
      const store = await scope.open();
      const a = await store.conversation("a");
      expect(await store.conversation("a")).toMatchObject({ id: a.id, sessionId: "a", messageCount: 0, lastSeq: -1 });
      expect(await store.findConversation("missing")).toBeNull();
      const b = await store.conversation("b");
      expect(b.id).not.toBe(a.id);
      await store.ingest(a.id, [user("one"), user("two")], { mode: "append" });
      const after = await store.getConversation(a.id);
      expect(after).toMatchObject({ messageCount: 2, lastSeq: 1, frontierCount: 2 });
      expect(after!.messageTokens).toBeGreaterThan(0);
      expect((await store.listConversations()).map((c) => c.sessionId).sort()).toEqual(["a", "b"]);
      expect(await store.getConversation(999_999)).toBeNull();
    });
  });
}
