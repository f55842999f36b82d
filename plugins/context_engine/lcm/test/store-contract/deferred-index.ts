import { afterEach, describe, expect, it } from "vitest";
import { searchHistory } from "../../src/search/index.js";
import { storeScope, type StoreContractOptions } from "./factory.js";
import { user } from "./msgs.js";

export function deferredIndexContract(options: StoreContractOptions): void {
  describe.skipIf(!options.features.deferredIndex)("deferred full-text index (feature: deferredIndex)", () => {
    const scope = storeScope(options);
    afterEach(() => scope.disposeAll());

    it("queues a bulk import, indexes it in bounded slices, and a search never misses it", async () => {
      const store = await scope.open();
      const c = await store.conversation("s");
      await store.ingest(c.id, Array.from({ length: 40 }, (_, i) => user(`imported line ${i} zebra${i}`)), { index: "deferred" });
      expect((await store.stats()).pendingIndex).toBe(40);
      const slice = await store.indexPending({ maxRows: 10 });
      expect(slice).toEqual({ indexed: 10, remaining: 30 });
      expect((await searchHistory(store, { query: "zebra39", conversationId: c.id })).hits).toHaveLength(1);
      expect((await store.stats()).pendingIndex).toBe(0);
    });
  });
}
