import { afterEach, describe, expect, it } from "vitest";
import { storeScope, type StoreContractOptions } from "./factory.js";
import { user } from "./msgs.js";
import { sevenMessages } from "./summaries.js";

export function frontierContract(options: StoreContractOptions): void {
  describe("frontier (active context)", () => {
    const scope = storeScope(options);
    afterEach(() => scope.disposeAll());

    it("reads the newest items within a token budget", async () => {
      const store = await scope.open();
      const { conv } = await sevenMessages(store);
      const all = (await store.getFrontier(conv.id)).items;
      expect(await store.getFrontierTail(conv.id, all[5]!.tokens + all[6]!.tokens)).toEqual(all.slice(5));
      expect(await store.getFrontierTail(conv.id, 0, { minItems: 1 })).toEqual(all.slice(6));
      expect(await store.getFrontierTail(conv.id, 1e9)).toEqual(all);
    });

    it("replaces the frontier only at the expected version and appends at the end", async () => {
      const store = await scope.open();
      const { conv, ids } = await sevenMessages(store);
      const v = (await store.getFrontier(conv.id)).version;
      expect(await store.setFrontier(conv.id, [{ kind: "message", messageId: ids[6]! }], { expectedVersion: v - 1 })).toEqual({ ok: false, version: v });
      expect(await store.setFrontier(conv.id, [{ kind: "message", messageId: ids[6]! }], { expectedVersion: v })).toEqual({ ok: true, version: v + 1 });
      await store.appendToFrontier(conv.id, [{ kind: "message", messageId: ids[0]! }]);
      const f = await store.getFrontier(conv.id);
      expect(f.items.map((i) => (i.kind === "message" ? i.messageId : 0))).toEqual([ids[6], ids[0]]);
      expect(f.tokens).toBe(f.items.reduce((a, i) => a + i.tokens, 0));
      expect(await store.inFrontier(conv.id, { kind: "message", messageId: ids[6]! })).toBe(true);
      expect(await store.inFrontier(conv.id, { kind: "message", messageId: ids[3]! })).toBe(false);
    });

    it("ingest can leave the frontier alone", async () => {
      const store = await scope.open();
      const { conv } = await sevenMessages(store);
      const before = await store.getFrontier(conv.id);
      await store.ingest(conv.id, [user("later")], { mode: "append", appendToFrontier: false });
      expect((await store.getFrontier(conv.id)).items).toEqual(before.items);
    });
  });
}
