/**
 * Per-step overhead of the prepareStep adapter with a no-op engine, relative
 * to the bare AI SDK loop. The model is the SDK's own mock and answers
 * instantly, so the bare figure is the SDK's own work per step and the
 * overhead is the adapter's work on top (converting each step's new messages
 * for the engine, feeding usage, asking shouldCompress). A real model call
 * takes hundreds of milliseconds, next to which both figures vanish.
 *
 * Run: pnpm bench (ai@7 under Node 24, then ai@6 under Node 20), or
 * `npx tsx bench/step-overhead.ts [ai|ai-v6]`.
 * Target: < 5% per step.
 */
import type { Message, Usage } from "@context-engine/core";
import { ContextEngine } from "@context-engine/core";
import { loadavg } from "node:os";
import { z } from "zod";
import { createContextSession } from "../src/index.js";

const moduleName = process.argv[2] === "ai-v6" ? "ai-v6" : "ai";
const ai = await import(moduleName);
const aiTest = await import(`${moduleName}/test`);
const MockModel = aiTest.MockLanguageModelV4 ?? aiTest.MockLanguageModelV3;
const systemKey = moduleName === "ai" ? "instructions" : "system";

class NoopEngine extends ContextEngine {
  get name() {
    return "noop";
  }
  updateFromResponse(usage: Usage): void {
    this.recordUsage(usage);
  }
  shouldCompress(): boolean {
    return false;
  }
  compress(messages: Message[]): Message[] {
    return messages;
  }
}

const STEPS = 10;
const HISTORY = 60;
const usage = { inputTokens: { total: 1000, noCache: 600, cacheRead: 400, cacheWrite: 0 }, outputTokens: { total: 20, text: 20, reasoning: 0 } };

function model() {
  let step = 0;
  return new MockModel({
    doGenerate: async () => {
      const n = step++;
      const content =
        n < STEPS - 1
          ? [{ type: "tool-call", toolCallId: `c${n}`, toolName: "read", input: JSON.stringify({ path: `src/file_${n}.ts` }) }]
          : [{ type: "text", text: "done" }];
      return { content, finishReason: { unified: n < STEPS - 1 ? "tool-calls" : "stop", raw: undefined }, usage, warnings: [] };
    },
  });
}

/** A coding-agent history the call starts from: user turns, tool rounds, answers. */
const history = Array.from({ length: HISTORY / 3 }, (_, i) => [
  { role: "user", content: `request ${i}: ` + "please look at this ".repeat(10) },
  { role: "assistant", content: [{ type: "tool-call", toolCallId: `h${i}`, toolName: "read", input: { path: `old_${i}.ts` } }] },
  { role: "tool", content: [{ type: "tool-result", toolCallId: `h${i}`, toolName: "read", output: { type: "text", value: "line\n".repeat(50) } }] },
]).flat();

const tools = { read: { description: "Read a file", inputSchema: z.object({ path: z.string() }), execute: async ({ path }: { path: string }) => `contents of ${path}` } };

const gc = (globalThis as { gc?: () => void }).gc;

type Mode = "bare" | "empty-callbacks" | "adapter";

async function once(mode: Mode | boolean): Promise<number> {
  const m: Mode = mode === true ? "adapter" : mode === false ? "bare" : mode;
  // Collect before each call, so one call's garbage is not billed to the next.
  gc?.();
  const session = m === "adapter" ? createContextSession(new NoopEngine()) : null;
  const empty = m === "empty-callbacks" ? { prepareStep: () => undefined, onStepFinish: () => {} } : {};
  const started = performance.now();
  const result = await ai.generateText({
    model: model(),
    [systemKey]: "You are a coding agent.",
    messages: history,
    tools,
    stopWhen: ai.stepCountIs(STEPS + 1),
    ...(session ? { prepareStep: session.prepareStep, onStepFinish: session.onStepFinish } : empty),
  });
  if (session) await session.finish(result);
  const elapsed = performance.now() - started;
  if (result.steps.length !== STEPS) throw new Error(`expected ${STEPS} steps, got ${result.steps.length}`);
  return elapsed / STEPS;
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
};

const WARMUP = 300;
const RUNS = 500;
for (let i = 0; i < WARMUP; i++) await once(i % 2 === 0); // JIT warm-up of both paths
const bare: number[] = [];
const adapted: number[] = [];
const callbacks: number[] = [];
for (let i = 0; i < RUNS; i++) {
  // Interleaved, order alternating, so drift from the other jobs on this machine hits both alike.
  if (i % 2 === 0) {
    bare.push(await once(false));
    adapted.push(await once(true));
  } else {
    adapted.push(await once(true));
    bare.push(await once(false));
  }
  callbacks.push(await once("empty-callbacks"));
}
const fmt = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;
const med = [quantile(bare, 0.5), quantile(adapted, 0.5)] as const;
const p95 = [quantile(bare, 0.95), quantile(adapted, 0.95)] as const;
const pct = (a: number, b: number) => `${(((b - a) / a) * 100).toFixed(1)}%`;
console.log(`ai-sdk step overhead (${moduleName}, Node ${process.version}, ${STEPS} steps/call, ${HISTORY}-message history, ${RUNS} calls each after ${WARMUP} warm-up, load ${loadavg()[0]!.toFixed(2)}${gc ? ", gc before each call" : ""})`);
console.log(`  per step  median: bare ${fmt(med[0])}, with no-op engine ${fmt(med[1])} → overhead ${pct(med[0], med[1])}`);
console.log(`  per step  p95:    bare ${fmt(p95[0])}, with no-op engine ${fmt(p95[1])} → overhead ${pct(p95[0], p95[1])}`);
console.log(`  for scale: the SDK with empty prepareStep/onStepFinish callbacks, median ${fmt(quantile(callbacks, 0.5))}, p95 ${fmt(quantile(callbacks, 0.95))}`);
// Paired: each adapted call against the bare call just before it, so load swings cancel.
const paired = quantile(adapted.map((a, i) => (a - (bare[i] as number)) / (bare[i] as number)), 0.5);
if (process.env.BENCH_DECILES) for (const q of [0.1, 0.25, 0.5, 0.75, 0.9]) console.log(`  q${q}: bare ${fmt(quantile(bare, q))} adapted ${fmt(quantile(adapted, q))}`);
console.log(`  paired median overhead: ${(paired * 100).toFixed(1)}%`);
console.log(`  target < 5% (median): ${(med[1] - med[0]) / med[0] < 0.05 ? "met" : "NOT met"}`);

// The adapter's own work per step, without the SDK around it: the same calls the SDK makes
// (prepareStep, onStepFinish, finish) on SDK-shaped inputs, warm. Not swayed by the SDK's
// allocations and GC, so it stays readable on a loaded machine.
async function adapterOnly(calls: number): Promise<number> {
  const stepUsage = { inputTokens: 1000, outputTokens: 20, totalTokens: 1020, inputTokenDetails: { cacheReadTokens: 400 } };
  const started = performance.now();
  for (let k = 0; k < calls; k++) {
    const session = createContextSession(new NoopEngine());
    let messages: unknown[] = history;
    const steps: Array<{ usage: unknown; response: { messages: unknown[] } }> = [];
    for (let i = 0; i < STEPS; i++) {
      await session.prepareStep({ stepNumber: i, steps, messages: messages as never });
      const response = [
        { role: "assistant", content: [{ type: "tool-call", toolCallId: `c${i}`, toolName: "read", input: { path: "x" } }] },
        { role: "tool", content: [{ type: "tool-result", toolCallId: `c${i}`, toolName: "read", output: { type: "text", value: "v" } }] },
      ];
      const step = { usage: stepUsage, response: { messages: response } };
      steps.push(step);
      session.onStepFinish(step);
      messages = [...messages, ...response];
    }
    await session.finish({ steps, responseMessages: steps.flatMap((s) => s.response.messages) as never });
  }
  return (performance.now() - started) / calls / STEPS;
}
await adapterOnly(2_000);
const own = await adapterOnly(5_000);
console.log(`  adapter's own work per step (no SDK around it, warm): ${fmt(own)} = ${((own / med[0]) * 100).toFixed(1)}% of the bare SDK step median`);
