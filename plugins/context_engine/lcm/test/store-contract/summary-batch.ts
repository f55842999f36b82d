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

    it("a leaf's summary and span are the same whether its run is in the order planned or read row by row", async () => {
      const store = await scope.open();
      const { conv, ids } = await sevenMessages(store);
      const messages = await store.getMessagesByIds(ids);
      const bySeq = (a: number, b: number) => messages.find((m) => m.id === a)!.seq - messages.find((m) => m.id === b)!.seq;
      const publish = async (run: number[], given: number[]) => {
        const items = (await store.getFrontier(conv.id)).items;
        const at = items.findIndex((i) => i.kind === "message" && i.messageId === run[0]);
        const expect = items.slice(at, at + run.length);
        return store.commitSummaries([
          {
            summary: { conversationId: conv.id, kind: "leaf", depth: 0, content: `over ${given.join(" ")}`, tokens: 3, sourceMessageIds: given },
            replace: { fromOrdinal: expect[0]!.ordinal, toOrdinal: expect[expect.length - 1]!.ordinal, expect },
          },
        ]);
      };
      const spanOf = (wanted: number[]) => {
        const rows = messages.filter((m) => wanted.includes(m.id));
        return {
          firstSeq: Math.min(...rows.map((m) => m.seq)),
          lastSeq: Math.max(...rows.map((m) => m.seq)),
          earliestAt: Math.min(...rows.map((m) => m.createdAt)),
          latestAt: Math.max(...rows.map((m) => m.createdAt)),
          descendantMessages: rows.length,
          sourceTokens: rows.reduce((a, m) => a + m.tokens, 0),
        };
      };
      // As planned: the run is the given ids, in frontier order, which is seq order.
      const planned = [ids[1]!, ids[2]!];
      const a = await publish(planned, planned);
      expect(a.refused).toBeUndefined();
      expect(a.committed[0]).toMatchObject({ id: summaryId(conv.id, "leaf", 0, planned.map((id) => `m${id}`), `over ${planned.join(" ")}`), ...spanOf(planned) });
      // Given in another order than the run: the sources are taken in seq order all the same.
      const reversed = [ids[4]!, ids[3]!];
      const b = await publish([ids[3]!, ids[4]!], reversed);
      expect(b.refused).toBeUndefined();
      const sorted = [...reversed].sort(bySeq);
      expect(b.committed[0]).toMatchObject({ id: summaryId(conv.id, "leaf", 0, sorted.map((id) => `m${id}`), `over ${reversed.join(" ")}`), ...spanOf(reversed) });
      // A frontier whose order is not seq order (set by hand): the summary names its sources in seq order.
      const frontier = (await store.getFrontier(conv.id)).items;
      const keys = frontier.map((i): FrontierItemKey => (i.kind === "message" ? { kind: "message", messageId: i.messageId } : { kind: "summary", summaryId: i.summaryId }));
      const swapped = keys.map((k) => (k.kind === "message" && k.messageId === ids[5] ? { kind: "message" as const, messageId: ids[6]! } : k.kind === "message" && k.messageId === ids[6] ? { kind: "message" as const, messageId: ids[5]! } : k));
      expect((await store.setFrontier(conv.id, swapped)).ok).toBe(true);
      const late = [ids[6]!, ids[5]!];
      const c = await publish(late, late);
      expect(c.refused).toBeUndefined();
      expect(c.committed[0]).toMatchObject({ id: summaryId(conv.id, "leaf", 0, [...late].sort(bySeq).map((id) => `m${id}`), `over ${late.join(" ")}`), ...spanOf(late) });
      const after = await store.getFrontier(conv.id);
      expect(after.tokens).toBe(after.items.reduce((t, i) => t + i.tokens, 0));
      expect(after.items.filter((i) => i.kind === "summary").map((i) => (i as { summaryId: string }).summaryId)).toEqual([a.committed[0]!.id, b.committed[0]!.id, c.committed[0]!.id]);
    });

    it("a leaf over a message of another conversation is refused naming it, as row by row", async () => {
      const store = await scope.open();
      const { conv, ids } = await sevenMessages(store);
      const other = await sevenMessages(store, "another");
      const items = (await store.getFrontier(conv.id)).items;
      const run = items.slice(1, 3);
      const foreign = other.ids[2]!;
      const out = await store.commitSummaries([
        {
          summary: { conversationId: conv.id, kind: "leaf", depth: 0, content: "mixed", tokens: 3, sourceMessageIds: [ids[1]!, foreign] },
          replace: { fromOrdinal: run[0]!.ordinal, toOrdinal: run[1]!.ordinal, expect: [run[0]!, { kind: "message", messageId: foreign }] },
        },
      ]);
      expect(out.committed).toEqual([]);
      expect(out.refused?.reason).toBe("unknown_source");
      expect((await store.getFrontier(conv.id)).items).toEqual(items);
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
