import type { Message } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { LcmEngine } from "../src/index.js";
import { tempDir } from "./engine-helpers.js";

/** LCM stores the host's `messageTimes` as each message's time, checking only the entries it stores. */
describe("LCM and the host's messageTimes", () => {
  it("stores each new message at the host's time; an entry that is not a time, or a list that does not line up, falls back to the clock", async () => {
    const t = tempDir();
    const engine = new LcmEngine({ dataDir: t.dir });
    try {
      const said = Date.UTC(2021, 2, 4, 9, 0);
      const first: Message[] = [
        { role: "system", content: "be brief" },
        { role: "user", content: "hello" },
        { role: "assistant", content: "hi" },
      ];
      await engine.onTurnComplete(first, null, { sessionId: "s", messageTimes: [null, said, "later" as never] });
      const before = Date.now();
      const second = [...first, { role: "user", content: "again" } as Message, { role: "assistant", content: "yes" } as Message];
      await engine.onTurnComplete(second, null, { sessionId: "s", messageTimes: [said] });
      const store = await engine.openStore();
      const conv = (await store.findConversation("s"))!;
      const stored = await store.getMessages(conv.id);
      expect(stored.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
      expect(stored[0]!.createdAt).toBe(said);
      for (const m of stored.slice(1)) expect(m.createdAt).toBeGreaterThan(said);
      for (const m of stored.slice(2)) expect(m.createdAt).toBeGreaterThanOrEqual(before);
    } finally {
      await engine.close();
      t.cleanup();
    }
  });
});
