import { afterEach, describe, expect, it } from "vitest";
import type { FrontierItemKey, LcmStoreDriver, SummaryBatchStep } from "../../src/store/types.js";
import { summaryId } from "../../src/store/summary-plan.js";
import { storeScope, type StoreContractOptions } from "./factory.js";
import { sevenMessages } from "./summaries.js";

/** Two leaves over messages 1..2 and 3..4 and a condensed summary over both (named by step index), as one batch. */
async function twoLeavesAndTop(store: LcmStoreDriver, conversationId: number, ids: number[]): Promise<SummaryBatchStep[]> {
  const items = (await store.getFrontier(conversationId)).items;
  const leafStep = (from: number, content: string): SummaryBatchStep => {
    const run = items.slice(from, from + 2);
    return {
      summary: { conversationId, kind: "leaf", depth: 0, content, tokens: 3, sourceMessageIds: ids.slice(from, from + 2) },
      replace: { fromOrdinal: run[0]!.ordinal, toOrdinal: run[1]!.ordinal, expect: run },
    };
  };
  const pending: FrontierItemKey[] = [{ kind: "summary", summaryId: "" }, { kind: "summary", summaryId: "" }];
  return [
    leafStep(1, "first"),
    leafStep(3, "second"),
    {
      summary: { conversationId, kind: "condensed", depth: 1, content: "both", tokens: 2, childSummaryIds: ["", ""] },
      replace: { fromOrdinal: items[1]!.ordinal, toOrdinal: items[3]!.ordinal, expect: pending },
      earlier: [0, 1],
    },
  ];
}

export function summaryBatchContract(options: StoreContractOptions): void {
  describe("publishing summaries as one batch", () => {
    const scope = storeScope(options);
    afterEach(() => scope.disposeAll());

    it("commits every step in order, a later step naming an earlier one's summary, as commitSummary one by one would", async () => {
      const store = await scope.open();
      const { conv, ids } = await sevenMessages(store);
      const before = await store.getFrontier(conv.id);
      const out = await store.commitSummaries(await twoLeavesAndTop(store, conv.id, ids));
      expect(out.refused).toBeUndefined();
      const [s1, s2, top] = out.committed;
      expect(top).toMatchObject({ kind: "condensed", depth: 1, firstSeq: 1, lastSeq: 4, descendantMessages: 4 });
      expect((await store.lineage(top!.id)).childSummaryIds).toEqual([s1!.id, s2!.id]);
      expect(await store.descendantMessageIds(top!.id)).toEqual(ids.slice(1, 5));
      const after = await store.getFrontier(conv.id);
      expect(after.items.map((i) => (i.kind === "summary" ? i.summaryId : i.messageId))).toEqual([ids[0], top!.id, ids[5], ids[6]]);
      expect(after.version).toBe(before.version + 3);
      expect(after.count).toBe(4);
      expect(after.tokens).toBe(after.items.reduce((a, i) => a + i.tokens, 0));

      // The ids are the ones commitSummary derives (summary-plan.ts), the earlier steps' ids filled into the later one.
      expect(s1!.id).toBe(summaryId(conv.id, "leaf", 0, ids.slice(1, 3).map((id) => `m${id}`), "first"));
      expect(top!.id).toBe(summaryId(conv.id, "condensed", 1, [s1!.id, s2!.id], "both"));
    });

    it("stops at the first step whose run changed: the steps before it stay, it and the rest write nothing", async () => {
      const store = await scope.open();
      const { conv, ids } = await sevenMessages(store);
      const batch = await twoLeavesAndTop(store, conv.id, ids);
      // Another writer takes messages 3..4 first.
      const items = (await store.getFrontier(conv.id)).items;
      const taken = await store.commitSummary(
        { conversationId: conv.id, kind: "leaf", depth: 0, content: "taken", tokens: 2, sourceMessageIds: ids.slice(3, 5) },
        { fromOrdinal: items[3]!.ordinal, toOrdinal: items[4]!.ordinal, expect: items.slice(3, 5) },
      );
      if (!taken.ok) throw new Error(taken.detail);
      const out = await store.commitSummaries(batch);
      expect(out.committed.map((s) => s.content)).toEqual(["first"]);
      expect(out.refused).toMatchObject({ step: 1, reason: "frontier_changed" });
      expect((await store.listSummaries(conv.id)).map((s) => s.content).sort()).toEqual(["first", "taken"]);
      const after = await store.getFrontier(conv.id);
      expect(after.items.map((i) => (i.kind === "summary" ? i.summaryId : i.messageId))).toEqual([ids[0], out.committed[0]!.id, taken.summary.id, ids[5], ids[6]]);
      expect(after.tokens).toBe(after.items.reduce((a, i) => a + i.tokens, 0));
    });
  });
}
