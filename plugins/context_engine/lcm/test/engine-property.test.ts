import { afterEach, describe, expect, it } from "vitest";
import fc from "fast-check";
import { checkConversation, defaultTokenCounter } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { FakeSummarizer } from "./engine-helpers.js";
import { makeEngine } from "./engine-setup.js";

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

type Step =
  | { kind: "user"; words: number; parts: boolean }
  | { kind: "answer"; words: number }
  | { kind: "tools"; calls: number; words: number; big: boolean }
  | { kind: "system-note" };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("user" as const), words: fc.integer({ min: 1, max: 400 }), parts: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("answer" as const), words: fc.integer({ min: 1, max: 300 }) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("tools" as const), calls: fc.integer({ min: 1, max: 4 }), words: fc.integer({ min: 1, max: 600 }), big: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: "system-note" as const }) },
);

function build(steps: Step[], seed: number): Message[] {
  const msgs: Message[] = [{ role: "system", content: "You are an agent." }];
  let call = 0;
  let n = 0;
  const text = (w: number) => `item${seed}_${n++} ` + "alpha beta gamma delta ".repeat(Math.ceil(w / 4));
  for (const s of steps) {
    if (s.kind === "user") msgs.push({ role: "user", content: s.parts ? [{ type: "text", text: text(s.words) }] : text(s.words) });
    else if (s.kind === "answer") msgs.push({ role: "assistant", content: text(s.words) });
    else if (s.kind === "system-note") msgs.push({ role: "system", content: `note ${n++}` });
    else {
      const ids = Array.from({ length: s.calls }, () => `p${seed}_${call++}`);
      msgs.push({ role: "assistant", content: null, tool_calls: ids.map((id) => ({ id, type: "function" as const, function: { name: "run", arguments: `{"n":${n++}}` } })) });
      for (const id of ids) msgs.push({ role: "tool", tool_call_id: id, content: text(s.big ? 12_000 : s.words) });
    }
  }
  return msgs;
}

describe("engine under random conversations", () => {
  it("every request the host would send is valid and under the window; nothing is lost from the store", async () => {
    let compactions = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 5, maxLength: 60 }), fc.integer({ min: 4_000, max: 20_000 }), fc.integer(), async (steps, window, seed) => {
        const { engine, cleanup } = makeEngine({ contextLength: window, chatModel: new FakeSummarizer() });
        cleanups.push(cleanup);
        const all = build(steps, seed);
        let live: Message[] = [all[0]!];
        for (const m of all.slice(1)) {
          live = [...live, m];
          const tokens = defaultTokenCounter.countMessages(live);
          if (m.role === "tool") continue; // requests go out after a whole tool round
          if (engine.shouldCompress(tokens)) {
            const out = await engine.compress(live, { sessionId: "p", currentTokens: tokens });
            if (out !== live) compactions++;
            live = out;
          }
          const sent = (await engine.selectContext(live, { sessionId: "p" })) ?? live;
          expect(checkConversation(sent)).toEqual([]);
          expect(defaultTokenCounter.countMessages(sent)).toBeLessThanOrEqual(window);
          if (m.role === "assistant" && !(m as { tool_calls?: unknown }).tool_calls) await engine.onTurnComplete(live, null, { sessionId: "p" });
        }
        await engine.onTurnComplete(live, null, { sessionId: "p" });
        const conv = (await engine.store.findConversation("p"))!;
        // Leading system messages are the host's prompt (passed through, not history); everything else is stored.
        let head = 0;
        while (all[head]?.role === "system") head++;
        expect(conv.messageCount).toBe(all.length - head);
      }),
      { numRuns: Number(process.env.LCM_PROPERTY_RUNS ?? 12) },
    );
    expect(compactions).toBeGreaterThan(0);
  }, 60_000);
});
