import type { Message } from "@context-engine/core";
import { afterEach, describe, expect, it } from "vitest";
import { storeScope, type StoreContractOptions } from "./factory.js";
import { asst, call, result, sys, user } from "./msgs.js";

export function messagesContract(options: StoreContractOptions): void {
  describe("messages", () => {
    const scope = storeScope(options);
    afterEach(() => scope.disposeAll());

    it("round-trips structure: null content, tool calls, parts, unknown fields", async () => {
      const store = await scope.open();
      const conv = await store.conversation("s");
      const msgs: Message[] = [
        sys("You are a coding agent."),
        user("read a.ts please"),
        { ...call("call_1", "read_file", { path: "a.ts" }), reasoning_content: "need the file" } as Message,
        result("call_1", "export const a = 1;\n"),
        { role: "user", content: [{ type: "text", text: "look" }, { type: "image_url", image_url: { url: "https://example.com/x.png" } }] } as Message,
      ];
      const r = await store.ingest(conv.id, msgs);
      expect(r.appended).toBe(5);
      const stored = await store.getMessages(conv.id);
      expect(stored.map((m) => m.seq)).toEqual([0, 1, 2, 3, 4]);
      expect(stored.map((m) => m.message)).toEqual(msgs);
      expect(stored[2]!.toolCallIds).toEqual(["call_1"]);
      expect(stored[3]!.toolCallId).toBe("call_1");
      expect((await store.toolExchange(conv.id, "call_1")).map((m) => m.seq)).toEqual([2, 3]);
      expect((await store.getMessageBySeq(conv.id, 1))!.message).toEqual(msgs[1]);
      expect((await store.getMessagesByIds([r.ids[3]!, r.ids[0]!, 123_456])).map((m) => m.seq)).toEqual([3, 0]);
      expect(await store.tokensInRange(conv.id, 0, 4)).toBe(stored.reduce((a, m) => a + m.tokens, 0));
      expect((await store.getMessages(conv.id, { reverse: true, limit: 2 })).map((m) => m.seq)).toEqual([4, 3]);
    });

    it("ingests idempotently: the same transcript twice stores it once, growth is appended", async () => {
      const store = await scope.open();
      const conv = await store.conversation("s");
      const turn1 = [sys("S"), user("hello"), asst("hi")];
      expect((await store.ingest(conv.id, turn1)).appended).toBe(3);
      const again = await store.ingest(conv.id, turn1);
      expect(again).toMatchObject({ appended: 0, alreadyStored: 3 });
      const turn2 = [...turn1, user("hello"), asst("hi again")];
      expect((await store.ingest(conv.id, turn2)).appended).toBe(2);
      expect((await store.getConversation(conv.id))!.messageCount).toBe(5);
    });

    it("keeps a NUL character and several messages written at once, in order", async () => {
      const store = await scope.open();
      const conv = await store.conversation("s");
      const msgs = [user("before\u0000after"), call("call_n", "read", { path: "x\u0000y" }), result("call_n", "ok"), asst("done")];
      const r = await store.ingest(conv.id, msgs, { timestamps: [10, 20, 30, 40] });
      expect(r).toMatchObject({ appended: 4, firstSeq: 0, lastSeq: 3 });
      const stored = await store.getMessages(conv.id);
      expect(stored.map((m) => m.message)).toEqual(msgs);
      expect(stored.map((m) => m.id)).toEqual(r.ids);
      expect(stored.map((m) => m.createdAt)).toEqual([10, 20, 30, 40]);
      expect(stored[1]!.toolCallIds).toEqual(["call_n"]);
      expect((await store.getFrontier(conv.id)).items.map((i) => (i.kind === "message" ? i.messageId : null))).toEqual(r.ids);
    });

    it("stores large bodies once and restores them on read", async () => {
      const store = await scope.open({ payloadThresholdBytes: 1024 });
      const conv = await store.conversation("s");
      const big = "x".repeat(5000) + " tail-marker";
      const r = await store.ingest(conv.id, [user(big), user(big)], { mode: "append" });
      const [a, b] = await store.getMessagesByIds(r.ids as number[]);
      expect(a!.message.content).toBe(big);
      expect(b!.message.content).toBe(big);
      const payload = await store.putPayload(big, "text/plain");
      expect((await store.getPayload(payload.hash))!.text).toBe(big);
    });

    it("redacts secrets before storage", async () => {
      const store = await scope.open();
      const conv = await store.conversation("s");
      const key = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0";
      await store.ingest(conv.id, [user(`my key is ${key}`)]);
      const [m] = await store.getMessages(conv.id);
      expect(JSON.stringify(m!.message)).not.toContain(key);
      expect(m!.redacted).toBe(true);
    });
  });
}
