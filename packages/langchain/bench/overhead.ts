/**
 * Per-step overhead of the middleware with a no-op engine, relative to the
 * bare createAgent loop. Each invocation is a three-step agent loop (two tool
 * rounds, then an answer) over a 40-message history, with LangChain's own
 * fake chat model. Bare and wrapped invocations alternate so machine load
 * hits both alike; figures are per model step.
 * Run: pnpm bench (or `npx tsx bench/overhead.ts` in this package).
 */
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { createAgent } from "langchain";
import { AIMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { ContextEngine } from "@context-engine/core";
import type { Message, Usage } from "@context-engine/core";
import { contextEngineMiddleware } from "../src/index.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 300);
const WARMUP = 30;
const STEPS = 3;

/** Does nothing but keep the usage figures, as any engine must. */
class NoopEngine extends ContextEngine {
  get name() {
    return "noop";
  }
  updateFromResponse(usage: Usage) {
    this.recordUsage(usage);
  }
  shouldCompress() {
    return false;
  }
  compress(messages: Message[]) {
    return messages;
  }
}

const echo = tool(async () => "ok", { name: "echo", description: "echo", schema: { type: "object", properties: {} } });
const usage = { input_tokens: 1_000, output_tokens: 10, total_tokens: 1_010 };

function history(): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let i = 0; i < 20; i++) {
    out.push(new HumanMessage(`question ${i} about the parser and the cache`));
    out.push(new AIMessage(`answer ${i}: the parser reads the cache first`));
  }
  out.push(new HumanMessage("one more"));
  return out;
}

function scriptedModel(rounds: number) {
  const model = fakeModel();
  let call = 0;
  for (let r = 0; r < rounds; r++) {
    for (let s = 0; s < STEPS - 1; s++) {
      const id = `c${call++}`;
      model.respond(new AIMessage({ content: "", tool_calls: [{ id, name: "echo", args: {}, type: "tool_call" }], usage_metadata: usage }));
    }
    model.respond(new AIMessage({ content: "done", usage_metadata: usage }));
  }
  return model;
}

const total = ROUNDS + WARMUP;
const bare = createAgent({ model: scriptedModel(total), tools: [echo], systemPrompt: "be brief" });
const wrapped = createAgent({
  model: scriptedModel(total),
  tools: [echo],
  systemPrompt: "be brief",
  middleware: [contextEngineMiddleware({ engine: new NoopEngine(), contextLength: 128_000 })],
});

async function once(agent: typeof bare | typeof wrapped): Promise<number> {
  const started = performance.now();
  await agent.invoke({ messages: history() }, { configurable: { thread_id: "bench" } });
  return (performance.now() - started) / STEPS;
}

const samples = { bare: [] as number[], wrapped: [] as number[] };
const ratios: number[] = [];
for (let i = 0; i < total; i++) {
  // Alternate which goes first so neither always runs on a warmer cache.
  const order = i % 2 === 0 ? (["bare", "wrapped"] as const) : (["wrapped", "bare"] as const);
  const pair: Record<string, number> = {};
  for (const which of order) pair[which] = await once(which === "bare" ? bare : wrapped);
  if (i < WARMUP) continue;
  samples.bare.push(pair.bare!);
  samples.wrapped.push(pair.wrapped!);
  ratios.push(pair.wrapped! / pair.bare!);
}

const q = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * (s.length - 1)))]!;
};
const row = (name: string, xs: number[]) => `${name.padEnd(22)} median ${q(xs, 0.5).toFixed(3)} ms/step   p95 ${q(xs, 0.95).toFixed(3)} ms/step`;
console.log(`langchain adapter overhead: ${ROUNDS} invocations x ${STEPS} steps each, load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
console.log(row("bare createAgent", samples.bare));
console.log(row("+ no-op engine", samples.wrapped));
const medianOverhead = (q(samples.wrapped, 0.5) / q(samples.bare, 0.5) - 1) * 100;
const p95Overhead = (q(samples.wrapped, 0.95) / q(samples.bare, 0.95) - 1) * 100;
// Neighbouring runs share the machine's momentary load, so the median of
// per-pair ratios is the figure least moved by other processes.
const pairedOverhead = (q(ratios, 0.5) - 1) * 100;
console.log(`overhead: median ${medianOverhead.toFixed(1)}%, p95 ${p95Overhead.toFixed(1)}%, median of paired ratios ${pairedOverhead.toFixed(1)}% (target < 5%)`);

// The adapter's own work per step (its wrapModelCall around an instant
// handler), which load on this shared machine barely moves.
const direct = contextEngineMiddleware({ engine: new NoopEngine(), contextLength: 128_000 });
const wrap = direct.wrapModelCall as unknown as (request: unknown, handler: () => Promise<AIMessage>) => Promise<unknown>;
const reply = new AIMessage({ content: "x", usage_metadata: usage });
const messages = history();
const request = { model: { model: "m" }, messages, systemMessage: new SystemMessage("be brief"), systemPrompt: "be brief", tools: [], state: { messages }, runtime: { configurable: { thread_id: "b" } } };
const instant = async () => reply;
const CALLS = 20_000;
for (let i = 0; i < 2_000; i++) await wrap(request, instant);
let t = performance.now();
for (let i = 0; i < CALLS; i++) await wrap(request, instant);
const wrappedUs = ((performance.now() - t) * 1000) / CALLS;
t = performance.now();
for (let i = 0; i < CALLS; i++) await instant();
const instantUs = ((performance.now() - t) * 1000) / CALLS;
const ownUs = wrappedUs - instantUs;
console.log(`adapter work per step: ${ownUs.toFixed(1)} µs = ${((ownUs / 1000 / q(samples.bare, 0.5)) * 100).toFixed(2)}% of the bare step median`);
