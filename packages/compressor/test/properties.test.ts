import type { Message } from "@context-engine/core";
import { checkConversation, contentText, createEstimator } from "@context-engine/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ContextCompressor } from "../src/index.js";
import { expectAlternating, fakeSummariser, lastUserText } from "./helpers.js";

const counter = createEstimator();

type Unit =
  | { kind: "user"; words: number; image?: boolean }
  | { kind: "assistant"; words: number }
  | { kind: "tools"; calls: number[]; text: boolean };

const unitArb: fc.Arbitrary<Unit> = fc.oneof(
  fc.record({ kind: fc.constant("user" as const), words: fc.integer({ min: 1, max: 400 }), image: fc.boolean() }),
  fc.record({ kind: fc.constant("assistant" as const), words: fc.integer({ min: 1, max: 300 }) }),
  fc.record({ kind: fc.constant("tools" as const), calls: fc.array(fc.integer({ min: 0, max: 3_000 }), { minLength: 1, maxLength: 3 }), text: fc.boolean() }),
);

function build(units: Unit[], system: boolean, inFlight: boolean): Message[] {
  const out: Message[] = system
    ? [
        { role: "system", content: "You are helpful. " + "rule ".repeat(50) },
        { role: "developer", content: "Prefer short answers." },
      ]
    : [];
  let id = 0;
  units.forEach((u, i) => {
    if (u.kind === "user") {
      const text = `ask_${i}: ` + "please ".repeat(u.words);
      out.push(
        u.image
          ? { role: "user", content: [{ type: "text", text }, { type: "image_url", image_url: { url: "https://example.com/shot.png" } }] }
          : { role: "user", content: text },
      );
    }
    else if (u.kind === "assistant") out.push({ role: "assistant", content: `answer_${i} ` + "sure ".repeat(u.words) });
    else {
      const calls = u.calls.map(() => `call_${i}_${id++}`);
      out.push({
        role: "assistant",
        content: u.text ? `running tools for unit ${i}` : null,
        tool_calls: calls.map((cid) => ({ id: cid, type: "function" as const, function: { name: "run", arguments: JSON.stringify({ unit: i }) } })),
      });
      u.calls.forEach((size, k) => out.push({ role: "tool", tool_call_id: calls[k]!, content: `result_${i}_${k} ` + "r".repeat(size) }));
    }
  });
  if (inFlight) {
    out.push({ role: "assistant", content: null, tool_calls: [{ id: "in_flight", type: "function", function: { name: "run", arguments: "{}" } }] });
  }
  return out;
}

describe("compress: properties over random conversations", () => {
  it("always returns a valid conversation that keeps the latest request, never larger, under the threshold when feasible", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(unitArb, { minLength: 1, maxLength: 60 }),
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 3_000, max: 40_000 }),
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 1, max: 10 }),
        fc.boolean(),
        fc.boolean(),
        async (units, system, inFlight, window, first, last, withModel, force) => {
          const messages = build(units, system, inFlight);
          const engine = new ContextCompressor({
            contextLength: window,
            config: { protect_first_n: first, protect_last_n: last },
            ...(withModel ? { chatModel: fakeSummariser() } : {}),
          });
          const before = counter.countMessages(messages);
          const out = await engine.compress(messages, { force });
          const problems = checkConversation(out);
          expect(problems.map((p) => p.message)).toEqual([]);
          const latest = lastUserText(messages);
          if (latest) expect(out.map((m) => contentText(m.content)).join("\n")).toContain(latest);
          if (out === messages) return;
          const after = counter.countMessages(out);
          expect(after).toBeLessThan(before);
          expectAlternatingIfInputDid(messages, out);
          // Feasible: the system prompt and latest request are small next to the threshold.
          const latestTokens = latest ? counter.countText(latest) + 10 : 0;
          const systemTokens = system ? counter.countMessages(messages.slice(0, 2)) : 0;
          const biggest = Math.max(...messages.map((m) => counter.countMessage(m)));
          if (before >= engine.thresholdTokens && systemTokens + latestTokens < engine.thresholdTokens / 4 && biggest < engine.thresholdTokens / 4) {
            expect(after).toBeLessThan(engine.thresholdTokens);
          }
        },
      ),
      {
        numRuns: 120,
        // Found by a random run: the restated task left no room, and the window fit cut the latest request (with an image).
        examples: [
          [
            [
              { kind: "user", words: 312, image: false },
              { kind: "user", words: 111, image: false },
              { kind: "assistant", words: 175 },
              { kind: "user", words: 83, image: false },
              { kind: "user", words: 326, image: true },
            ],
            true, false, 3000, 0, 3, false, false,
          ],
        ],
      },
    );
  });

  it("repeated growth and compaction stays under the threshold turn after turn", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(unitArb, { minLength: 20, maxLength: 120 }), fc.boolean(), async (units, withModel) => {
        const engine = new ContextCompressor({ contextLength: 12_000, ...(withModel ? { chatModel: fakeSummariser() } : {}) });
        let transcript: Message[] = [{ role: "system", content: "system prompt" }];
        for (const m of build(units, false, false)) {
          transcript = [...transcript, m];
          const tokens = counter.countMessages(transcript);
          if (engine.shouldCompress(tokens)) {
            transcript = await engine.compress(transcript, { currentTokens: tokens });
            expect(counter.countMessages(transcript)).toBeLessThan(engine.thresholdTokens);
          }
          // Mid tool group, results may still be missing: in-flight calls are allowed at the end.
          expect(checkConversation(transcript)).toEqual([]);
        }
      }),
      { numRuns: 25 },
    );
  });
});

function expectAlternatingIfInputDid(input: Message[], output: Message[]): void {
  try {
    expectAlternating(input);
  } catch {
    return; // the input itself did not alternate; nothing to preserve
  }
  expectAlternating(output);
}
