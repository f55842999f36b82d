import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CompressOptions, ContextEngine, Message } from "@context-engine/core";
import { checkConversation } from "@context-engine/core";
import { ContextCompressor } from "@context-engine/compressor";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createContextSession, toOpenAIMessages } from "../src/index.js";
import { readable, scriptedModel, seen } from "./harness.js";
import type { Scripted, SdkKit } from "./harness.js";

const longOutput = (i: number) => `output ${i}\n` + "a line of build output that fills the context\n".repeat(40);
const script: Scripted[] = [
  ...Array.from({ length: 6 }, (_, i) => ({ calls: [{ id: `r${i}`, name: "run", input: { step: i } }] })),
  { text: "all green" },
];
const runTool = { description: "Run a step", inputSchema: z.object({ step: z.number() }), execute: async ({ step }: { step: number }) => longOutput(step) };

/** Records what the real engine decided, so the test can compare with what the model saw. */
function spied<E extends ContextEngine>(engine: E): E & { decisions: Message[][] } {
  const decisions: Message[][] = [];
  const compress = engine.compress.bind(engine);
  engine.compress = async (messages: Message[], options?: CompressOptions) => {
    const out = await compress(messages, options);
    if (out !== messages) decisions.push(out);
    return out;
  };
  return Object.assign(engine, { decisions });
}

async function drive(kit: SdkKit, engine: ContextEngine & { decisions: Message[][] }) {
  const session = createContextSession(engine, { instructions: "You run build steps.", model: "mock", contextLength: 4_000 });
  const { model, prompts } = scriptedModel(kit, script, { promptSizedUsage: true });
  const result = await kit.generateText({
    model,
    [kit.systemKey]: "You run build steps.",
    messages: [{ role: "user", content: "run all the steps" }],
    tools: { run: runTool, ...session.tools() },
    stopWhen: kit.stepCountIs(10),
    prepareStep: session.prepareStep,
    onStepFinish: session.onStepFinish,
  });
  expect(result.text).toBe("all green");
  for (const prompt of prompts) expect(checkConversation(toOpenAIMessages(prompt))).toEqual([]);
  expect(engine.decisions.length).toBeGreaterThan(0);
  const history = await session.finish(result);
  expect(checkConversation(toOpenAIMessages(history))).toEqual([]);
  return { prompts, history };
}

export function realEnginesSuite(kit: SdkKit) {
  describe(`ai@${kit.major} with the bundled engines`, () => {
    it("the compressor compacts inside the loop and the model sees its result", async () => {
      const engine = spied(new ContextCompressor({ contextLength: 4_000, config: { threshold: 0.3, protect_last_n: 2, protect_first_n: 1 } }));
      const { prompts } = await drive(kit, engine);
      const first = engine.decisions[0]!;
      // The request right after the first compaction is exactly the compressor's output.
      const after = prompts.find((p) => JSON.stringify(seen(p)) === JSON.stringify(readable(first)));
      expect(after).toBeDefined();
      expect(prompts[prompts.length - 1]!.length).toBeLessThan(15);
    });

    // better-sqlite3 is built for the Node that ran `pnpm install` (20); under another major its addon does not load.
    const lcm = loadLcm();
    it.skipIf(!lcm.ok)(`LCM keeps every message and compacts inside the loop${lcm.ok ? "" : ` — SKIPPED: ${lcm.reason}`}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "ai-sdk-lcm-"));
      const { LcmEngine } = await import("@context-engine/lcm");
      const engine = spied(
        new LcmEngine({ dataDir: dir, contextLength: 4_000, config: { context_threshold: 0.3, fresh_tail_count: 2, leaf_min_messages: 2, leaf_chunk_tokens: 400, prepare_in_background: false } }),
      );
      try {
        await drive(kit, engine);
      } finally {
        engine.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
    if (!lcm.ok) console.warn(`[ai-sdk tests] LCM engine test skipped on Node ${process.version}: ${lcm.reason}`);
  });
}

// The probe database stays reachable for the process: on Node 24 a better-sqlite3 12.x wrapper that
// V8 collects outside JavaScript aborts the process (see lcm's src/store/native-pin.ts).
const probes: object[] = [];

function loadLcm(): { ok: true } | { ok: false; reason: string } {
  try {
    const req = createRequireHere();
    const Database = req("better-sqlite3") as new (path: string) => { close(): void };
    const probe = new Database(":memory:");
    probes.push(probe);
    probe.close();
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: `better-sqlite3 does not load (${String(error).split("\n")[0]})` };
  }
}

import { createRequire } from "node:module";
function createRequireHere() {
  // Resolve better-sqlite3 the way the LCM package does.
  return createRequire(join(process.cwd(), "..", "..", "plugins", "context_engine", "lcm", "package.json"));
}
