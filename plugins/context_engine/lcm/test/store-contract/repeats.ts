import type { Message } from "@context-engine/core";
import { afterEach, describe, expect, it } from "vitest";
import type { LcmStoreDriver } from "../../src/store/types.js";
import { storeScope, type StoreContractOptions } from "./factory.js";
import { asst, call, result, sys, user } from "./msgs.js";

const contents = async (store: LcmStoreDriver, conv: number) => (await store.getMessages(conv)).map((m) => m.message);

/**
 * Two identical messages in a row are two messages (issue 28): a host sends
 * its whole transcript every turn, and alignment must never take a repeated
 * message for the one already stored, in one process or after a restart.
 */
export function repeatsContract(options: StoreContractOptions): void {
  describe("repeated messages", () => {
    const scope = storeScope(options);
    afterEach(() => scope.disposeAll());

    // [what is stored first, what the host sends next]: the second list always ends with a repeat.
    const cases: Array<[string, Message[], Message[]]> = [
      ["the same text twice", [sys("S"), user("hello"), asst("hi"), user("continue")], [user("continue")]],
      ["the same text twice as the first messages", [user("continue")], [user("continue")]],
      ["the same text a fourth time", [sys("S"), user("go"), asst("ok"), user("continue"), user("continue"), user("continue")], [user("continue")]],
      ["the same answer twice", [sys("S"), user("hello"), asst("hi")], [asst("hi")]],
      ["the same tool call twice", [sys("S"), user("read a.ts"), call("call_1", "read", { path: "a.ts" }), result("call_1", "A")], [call("call_1", "read", { path: "a.ts" }), result("call_1", "A")]],
      [
        "the same tool round a third time",
        [sys("S"), user("poll"), call("c", "status", {}), result("c", "busy"), call("c", "status", {}), result("c", "busy")],
        [call("c", "status", {}), result("c", "busy")],
      ],
    ];

    for (const [name, first, repeat] of cases) {
      it(`stores ${name}`, async () => {
        const store = await scope.open();
        const conv = await store.conversation("s");
        expect((await store.ingest(conv.id, first)).appended).toBe(first.length);
        const all = [...first, ...repeat];
        const r = await store.ingest(conv.id, all);
        expect(r.appended).toBe(repeat.length);
        expect(r.ids.slice(first.length).every((id) => id !== null)).toBe(true);
        expect(await contents(store, conv.id)).toEqual(all);
        // The same list again stores nothing more.
        expect((await store.ingest(conv.id, all)).appended).toBe(0);
      });

      it(`stores ${name} across a restart`, async () => {
        let store = await scope.open();
        const conv = await store.conversation("s");
        await store.ingest(conv.id, first);
        store = await scope.reopen(store);
        const all = [...first, ...repeat];
        expect((await store.ingest(conv.id, all)).appended).toBe(repeat.length);
        store = await scope.reopen(store);
        expect((await store.ingest(conv.id, all)).appended).toBe(0);
        expect(await contents(store, conv.id)).toEqual(all);
      });
    }

    it("stores a repeat sent alone after a restart, turn after turn", async () => {
      let store = await scope.open();
      const conv = await store.conversation("s");
      const transcript: Message[] = [sys("S")];
      for (let turn = 0; turn < 4; turn++) {
        transcript.push(user("continue"), asst("working"));
        await store.ingest(conv.id, transcript);
        store = await scope.reopen(store);
      }
      expect(await contents(store, conv.id)).toEqual(transcript);
    });
  });
}
