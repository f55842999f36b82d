import { afterEach, describe, expect, it } from "vitest";
import { handleLcmToolCall, lcmToolSchemas } from "../src/tools/index.js";
import { makeEngine } from "./engine-setup.js";
import { asst, tempStore, user } from "./helpers.js";

let cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups) await c();
  cleanups = [];
});

/** Two sessions in one store, each with messages and a summary over some of them. */
function twoSessions() {
  const t = tempStore();
  cleanups.push(t.cleanup);
  const { store } = t;
  const make = (session: string, word: string) => {
    const conv = store.conversation(session);
    const ids = store.ingest(conv.id, [user(`${word} first question`), asst(`${word} answer one`), user(`${word} second`), asst(`${word} answer two`)]).ids as number[];
    const items = store.getFrontier(conv.id).items.slice(0, 2);
    const s = store.commitSummary(
      { conversationId: conv.id, kind: "leaf", depth: 0, content: `${word} summary of the first exchange`, tokens: 8, sourceMessageIds: ids.slice(0, 2) },
      { fromOrdinal: items[0]!.ordinal, toOrdinal: items[1]!.ordinal, expect: items },
    );
    if (!s.ok) throw new Error(s.detail);
    return { conv, ids, summaryId: s.summary.id };
  };
  return { store, a: make("alpha", "aardvark"), b: make("beta", "bumblebee") };
}

describe("cross-conversation isolation", () => {
  for (const cross of [false, true]) {
    it(`every tool with every id of the other session: cross_conversation ${cross}`, async () => {
      const { store, a, b } = twoSessions();
      const ctx = { conversationId: a.conv.id, allowCrossConversation: cross };
      const run = async (name: string, args: unknown) => JSON.parse(await handleLcmToolCall(store, name, args, ctx)) as Record<string, any>;
      const otherIds: Array<string | number> = [...b.ids.flatMap((id) => [`msg_${id}`, id]), b.summaryId];
      for (const id of otherIds) {
        for (const tool of ["lcm_describe", "lcm_expand"]) {
          const plain = (await run(tool, { id }));
          if (!cross) expect(plain.error, `${tool} ${id}`).toMatch(/: no (message|summary) /);
          else expect(plain.error, `${tool} ${id}`).toMatch(/another conversation/);
          const all = (await run(tool, { id, all_conversations: true }));
          if (!cross) expect(all.error, `${tool} ${id}`).toMatch(/cross-conversation reads are disabled/);
          else expect(all.error, `${tool} ${id}`).toBeUndefined();
          expect(JSON.stringify(plain)).not.toContain("bumblebee");
          if (!cross) expect(JSON.stringify(all)).not.toContain("bumblebee");
        }
      }
      // own ids always work
      for (const id of [...a.ids.map((i) => `msg_${i}`), a.summaryId]) {
        expect((await run("lcm_describe", { id })).error).toBeUndefined();
        expect((await run("lcm_expand", { id })).error).toBeUndefined();
      }
      for (const mode of ["full_text", "regex"]) {
        expect((await run("lcm_grep", { query: "bumblebee", mode })).hits).toEqual([]);
        const all = (await run("lcm_grep", { query: "bumblebee", mode, all_conversations: true }));
        if (!cross) {
          expect(all.error).toMatch(/cross-conversation reads are disabled/);
        } else {
          expect(all.hits.length).toBeGreaterThan(0);
          expect(all.hits.every((h: any) => h.session === "beta")).toBe(true);
        }
      }
      const schemas = lcmToolSchemas({ crossConversation: cross });
      for (const s of schemas) {
        expect(Object.keys((s.parameters as any).properties).includes("all_conversations")).toBe(cross);
      }
    });
  }
});

describe("cross-conversation isolation through the engine and its config", () => {
  for (const cross of [false, true]) {
    it(`engines.lcm.cross_conversation: ${cross}`, async () => {
      const made = makeEngine({ config: { cross_conversation: cross } });
      cleanups.push(made.cleanup);
      const engine = made.engine;
      await engine.onTurnComplete([user("aardvark in session a"), asst("noted aardvark")], null, { sessionId: "a" });
      await engine.onTurnComplete([user("bumblebee in session b"), asst("noted bumblebee")], null, { sessionId: "b" });
      const bConv = (await engine.store.findConversation("b"))!;
      const bIds = (await engine.store.getMessages(bConv.id)).map((m) => m.id);
      const call = async (name: string, args: unknown) => JSON.parse(await engine.handleToolCall(name, args, { sessionId: "a" })) as Record<string, any>;
      for (const id of bIds) {
        for (const tool of ["lcm_describe", "lcm_expand"]) {
          const all = await call(tool, { id: `msg_${id}`, all_conversations: true });
          if (cross) expect(all.error).toBeUndefined();
          else {
            expect(all.error).toMatch(/disabled/);
            expect((await call(tool, { id: `msg_${id}` })).error).toMatch(/no message/);
          }
        }
      }
      const grep = await call("lcm_grep", { query: "bumblebee", all_conversations: true });
      if (cross) expect(grep.hits.map((h: any) => h.session)).toContain("b");
      else expect(grep.error).toMatch(/disabled/);
      expect(engine.getToolSchemas().every((s) => "all_conversations" in ((s.parameters as any).properties ?? {}))).toBe(cross);
    });
  }
});
