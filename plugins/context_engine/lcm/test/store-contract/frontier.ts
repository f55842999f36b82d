import type { Message } from "@context-engine/core";
import { afterEach, describe, expect, it } from "vitest";
import { tailOf } from "../../src/assembly/row-cache.js";
import { storeScope, type StoreContractOptions } from "./factory.js";
import { asst, call, result, sys, user } from "./msgs.js";
import { leaf, sevenMessages } from "./summaries.js";

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

    it("a tail taken from a copy of the whole frontier (tailOf) is what getFrontierTail reads, for every budget and minimum", async () => {
      const store = await scope.open();
      const { conv, ids } = await sevenMessages(store);
      await leaf(store, conv.id, ids, 2, 3, "a summary among the messages");
      const all = (await store.getFrontier(conv.id)).items;
      const total = all.reduce((a, i) => a + i.tokens, 0);
      for (let minItems = 0; minItems <= all.length + 1; minItems++) {
        for (let budget = 0; budget <= total + 1; budget++) {
          expect(tailOf(all, budget, minItems)).toEqual(await store.getFrontierTail(conv.id, budget, { minItems }));
        }
      }
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

    it("reads only what follows an ordinal when asked, with the whole frontier's counters, in one snapshot", async () => {
      const store = await scope.open();
      const { conv, ids } = await sevenMessages(store);
      const whole = await store.getFrontier(conv.id, { shapes: true });
      expect(whole.count).toBe(whole.items.length);
      const cut = whole.items[3]!.ordinal;
      const after = await store.getFrontier(conv.id, { shapes: true, afterOrdinal: cut });
      expect(after.items).toEqual(whole.items.slice(4));
      expect({ version: after.version, tokens: after.tokens, count: after.count }).toEqual({ version: whole.version, tokens: whole.tokens, count: whole.count });
      expect((await store.getFrontier(conv.id, { afterOrdinal: whole.items[6]!.ordinal })).items).toEqual([]);
      // A summary over items 1..2 leaves the later ordinals as they were; an append comes after the last one.
      await leaf(store, conv.id, ids, 1, 2, "two of them");
      await store.appendToFrontier(conv.id, [{ kind: "message", messageId: ids[0]! }]);
      const later = await store.getFrontier(conv.id, { afterOrdinal: whole.items[6]!.ordinal });
      expect(later.items.map((i) => (i.kind === "message" ? i.messageId : null))).toEqual([ids[0]]);
      expect(later.count).toBe(whole.count - 2 + 1 + 1);
      expect((await store.getFrontier(conv.id)).items.slice(-1)).toEqual(later.items);
    });

    it("reads each message item's shape with the frontier when asked, and only then", async () => {
      const store = await scope.open();
      const conv = await store.conversation("s");
      const twoCalls = {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_b", type: "function", function: { name: "grep", arguments: "{}" } },
          { id: "call_a", type: "function", function: { name: "read", arguments: "{}" } },
        ],
      } as Message;
      const msgs = [sys("S"), user("u1"), asst("a1"), user("go"), twoCalls, result("call_b", "rb"), result("call_a", "ra"), call("call_c", "ls", {}), result("call_c", "rc"), asst("done")];
      const ids = (await store.ingest(conv.id, msgs)).ids as number[];
      await leaf(store, conv.id, ids, 1, 2, "u1 and a1");
      const plain = await store.getFrontier(conv.id);
      expect(plain.items.some((i) => "shape" in i)).toBe(false);
      const shaped = await store.getFrontier(conv.id, { shapes: true });
      // Same items, versions and tokens: only the shapes are added.
      expect(shaped.items.map(({ shape: _, ...rest }) => rest)).toEqual(plain.items);
      expect({ ...shaped, items: [] }).toEqual({ ...plain, items: [] });
      expect(shaped.items.map((i) => (i.kind === "summary" ? "summary" : i.shape))).toEqual([
        { role: "system", toolCallIds: [], toolCallId: null },
        "summary",
        { role: "user", toolCallIds: [], toolCallId: null },
        { role: "assistant", toolCallIds: ["call_b", "call_a"], toolCallId: null },
        { role: "tool", toolCallIds: [], toolCallId: "call_b" },
        { role: "tool", toolCallIds: [], toolCallId: "call_a" },
        { role: "assistant", toolCallIds: ["call_c"], toolCallId: null },
        { role: "tool", toolCallIds: [], toolCallId: "call_c" },
        { role: "assistant", toolCallIds: [], toolCallId: null },
      ]);
    });

    it("an ingest reports the frontier items it appended as the shaped read gives them, with the counters before", async () => {
      const store = await scope.open();
      const conv = await store.conversation("s");
      const noId = { role: "assistant", content: null, tool_calls: [{ type: "function", function: { name: "ls", arguments: "{}" } }] } as Message;
      const first = [sys("S"), user("u1"), call("call_a", "read", { p: 1 }), result("call_a", "ra"), noId, asst("a1")];
      const r1 = await store.ingest(conv.id, first);
      expect(r1.frontierAppend?.before).toEqual({ version: conv.frontierVersion, tokens: 0, count: 0 });
      const read1 = await store.getFrontier(conv.id, { shapes: true });
      expect(r1.frontierAppend?.items).toEqual(read1.items);
      const r2 = await store.ingest(conv.id, [...first, user("u2"), call("call_b", "grep", {}), result("call_b", "rb")]);
      expect(r2.frontierAppend?.before).toEqual({ version: read1.version, tokens: read1.tokens, count: read1.count });
      const read2 = await store.getFrontier(conv.id, { shapes: true, afterOrdinal: read1.items.at(-1)!.ordinal });
      expect(r2.frontierAppend?.items).toEqual(read2.items);
      // Nothing appended, or not to the frontier: nothing reported.
      expect((await store.ingest(conv.id, [...first, user("u2"), call("call_b", "grep", {}), result("call_b", "rb")])).frontierAppend).toBeUndefined();
      expect((await store.ingest(conv.id, [user("later")], { mode: "append", appendToFrontier: false })).frontierAppend).toBeUndefined();
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
