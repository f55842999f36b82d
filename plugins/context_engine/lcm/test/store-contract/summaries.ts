import { afterEach, describe, expect, it } from "vitest";
import { summaryId } from "../../src/store/summary-plan.js";
import type { LcmStoreDriver } from "../../src/store/types.js";
import { storeScope, type StoreContractOptions } from "./factory.js";
import { asst, sys, user } from "./msgs.js";

/** A conversation of 7 messages 10 ms apart, every one in the frontier. */
export async function sevenMessages(store: LcmStoreDriver, session = "s") {
  const conv = await store.conversation(session);
  const msgs = [sys("S"), user("u1"), asst("a1"), user("u2"), asst("a2"), user("u3"), asst("a3")];
  const r = await store.ingest(conv.id, msgs, { timestamps: msgs.map((_, i) => 1_000 + i * 10) });
  return { conv, ids: r.ids as number[] };
}

/** Summarise messages `from`..`to` (indexes into `ids`) as one leaf swapped into the frontier. */
export async function leaf(store: LcmStoreDriver, conversationId: number, ids: number[], from: number, to: number, content: string) {
  const wanted = ids.slice(from, to + 1);
  const run = (await store.getFrontier(conversationId)).items.filter((i) => i.kind === "message" && wanted.includes(i.messageId));
  const r = await store.commitSummary(
    { conversationId, kind: "leaf", depth: 0, content, tokens: 3, sourceMessageIds: wanted },
    { fromOrdinal: run[0]!.ordinal, toOrdinal: run[run.length - 1]!.ordinal, expect: run },
  );
  if (!r.ok) throw new Error(r.detail);
  return r.summary;
}

export function summariesContract(options: StoreContractOptions): void {
  describe("summaries and lineage", () => {
    const scope = storeScope(options);
    afterEach(() => scope.disposeAll());

    it("commits a leaf with lineage and spans, swapping it into the frontier; the same summary twice is one row", async () => {
      const store = await scope.open();
      const { conv, ids } = await sevenMessages(store);
      const before = await store.getFrontier(conv.id);
      const s = await leaf(store, conv.id, ids, 1, 4, "u1..a2 summarised");
      expect(s).toMatchObject({ firstSeq: 1, lastSeq: 4, earliestAt: 1010, latestAt: 1040, descendantMessages: 4, kind: "leaf", depth: 0 });
      expect(s.sourceTokens).toBe(await store.tokensInRange(conv.id, 1, 4));
      // Every store derives the id with the one formula (summary-plan.ts).
      expect(s.id).toBe(summaryId(conv.id, "leaf", 0, ids.slice(1, 5).map((id) => `m${id}`), "u1..a2 summarised"));
      const after = await store.getFrontier(conv.id);
      expect(after.items.map((i) => i.kind)).toEqual(["message", "summary", "message", "message"]);
      expect(after.version).toBe(before.version + 1);
      expect(after.tokens).toBe(after.items.reduce((a, i) => a + i.tokens, 0));
      expect((await store.lineage(s.id)).messageIds).toEqual(ids.slice(1, 5));
      expect(await store.summariesCoveringMessage(ids[2]!)).toEqual([s.id]);
      const again = await store.commitSummary({ conversationId: conv.id, kind: "leaf", depth: 0, content: "u1..a2 summarised", tokens: 3, sourceMessageIds: ids.slice(1, 5) });
      expect(again.ok && again.summary.id).toBe(s.id);
      expect(await store.listSummaries(conv.id)).toHaveLength(1);
      expect((await store.getSummary(s.id))!.content).toBe("u1..a2 summarised");
    });

    it("returns a committed summary exactly as it reads back, meta included", async () => {
      const store = await scope.open();
      const { conv, ids } = await sevenMessages(store);
      const run = (await store.getFrontier(conv.id)).items.slice(1, 3);
      const meta = { prompt: "lcm-v1", fallbackReason: "model refused", nested: { n: 1, list: [1, "two"] } };
      const r = await store.commitSummary(
        { conversationId: conv.id, kind: "leaf", depth: 0, content: "u1, a1", tokens: 2.6, level: "aggressive", model: "m", meta, sourceMessageIds: ids.slice(1, 3) },
        { fromOrdinal: run[0]!.ordinal, toOrdinal: run[1]!.ordinal, expect: run },
      );
      if (!r.ok) throw new Error(r.detail);
      expect(await store.getSummary(r.summary.id)).toEqual(r.summary);
      expect(r.summary).toMatchObject({ tokens: 3, level: "aggressive", model: "m", meta });
    });

    it("refuses a stale compare-and-swap, an uncovered item and foreign sources, leaving nothing behind", async () => {
      const store = await scope.open();
      const { conv, ids } = await sevenMessages(store);
      const run = (await store.getFrontier(conv.id)).items.slice(1, 3);
      await store.setFrontier(conv.id, (await store.getFrontier(conv.id)).items.slice(2));
      const stale = await store.commitSummary(
        { conversationId: conv.id, kind: "leaf", depth: 0, content: "late", tokens: 2, sourceMessageIds: ids.slice(1, 3) },
        { fromOrdinal: run[0]!.ordinal, toOrdinal: run[1]!.ordinal, expect: run },
      );
      expect(stale).toMatchObject({ ok: false, reason: "frontier_changed" });
      const three = (await store.getFrontier(conv.id)).items.slice(0, 3);
      const uncovered = await store.commitSummary(
        { conversationId: conv.id, kind: "leaf", depth: 0, content: "x", tokens: 1, sourceMessageIds: ids.slice(2, 4) },
        { fromOrdinal: three[0]!.ordinal, toOrdinal: three[2]!.ordinal, expect: three },
      );
      expect(uncovered).toMatchObject({ ok: false, reason: "not_covered" });
      const other = await store.conversation("other");
      const foreign = (await store.ingest(other.id, [user("z")])).ids[0]!;
      expect(await store.commitSummary({ conversationId: conv.id, kind: "leaf", depth: 0, content: "x", tokens: 1, sourceMessageIds: [foreign] })).toMatchObject({
        ok: false,
        reason: "unknown_source",
      });
      expect(await store.listSummaries(conv.id)).toHaveLength(0);
    });

    it("condenses summaries into a deeper node and walks the DAG down to the original messages", async () => {
      const store = await scope.open();
      const { conv, ids } = await sevenMessages(store);
      const s1 = await leaf(store, conv.id, ids, 1, 2, "first");
      const s2 = await leaf(store, conv.id, ids, 3, 4, "second");
      const run = (await store.getFrontier(conv.id)).items.filter((i) => i.kind === "summary");
      const top = await store.commitSummary(
        { conversationId: conv.id, kind: "condensed", depth: 1, content: "both", tokens: 2, childSummaryIds: [s1.id, s2.id] },
        { fromOrdinal: run[0]!.ordinal, toOrdinal: run[1]!.ordinal, expect: run },
      );
      if (!top.ok) throw new Error(top.detail);
      expect(top.summary).toMatchObject({ depth: 1, firstSeq: 1, lastSeq: 4, descendantMessages: 4 });
      expect(await store.descendantMessageIds(top.summary.id)).toEqual(ids.slice(1, 5));
      expect((await store.lineage(s1.id)).parentSummaryIds).toEqual([top.summary.id]);
      expect((await store.lineage(top.summary.id)).childSummaryIds).toEqual([s1.id, s2.id]);
      expect((await store.listSummaries(conv.id, { depth: 0 })).map((s) => s.id).sort()).toEqual([s1.id, s2.id].sort());
      // the originals stay readable, unchanged, under every summary
      expect((await store.getMessagesByIds(ids.slice(1, 5))).map((m) => m.message.content)).toEqual(["u1", "a1", "u2", "a2"]);
    });
  });
}
