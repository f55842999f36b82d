// Per-step overhead of the adapter with a no-op engine, relative to the bare
// path, both driven by OpenClaw's own assembleHarnessContextEngine (the step
// the embedded runner takes before every model call). Bare = an OpenClaw
// engine that hands the messages straight back (what the legacy engine does).
// Runs on Node 24: `pnpm --filter @context-engine/openclaw bench`.
import { assembleHarnessContextEngine } from "openclaw/plugin-sdk/agent-harness-runtime";
import { createOpenClawContextEngine } from "../src/index.js";
import type { OcAgentMessage, OpenClawContextEngine } from "../src/index.js";
import { NoopEngine } from "../test/engines.js";
import { transcript } from "../test/fixtures.js";

const STEPS = Number(process.env.BENCH_STEPS ?? 400);
const BLOCKS = 5;

const bare: OpenClawContextEngine = {
  info: { id: "bare", name: "bare" },
  bootstrap: async () => ({ bootstrapped: true }),
  ingest: async () => ({ ingested: false }),
  ingestBatch: async () => ({ ingestedCount: 0 }),
  afterTurn: async () => {},
  commitTurn: async () => ({ status: "committed" }),
  assemble: async ({ messages }) => ({ messages, estimatedTokens: 0 }),
  compact: async () => ({ ok: true, compacted: false }),
  dispose: async () => {},
};

let sink = 0;
async function step(engine: OpenClawContextEngine, messages: OcAgentMessage[], key: string, serialize: boolean): Promise<void> {
  const assembled = await assembleHarnessContextEngine({
    contextEngine: engine as never,
    sessionId: "bench",
    sessionKey: "agent:main:bench",
    messages: messages as never,
    tokenBudget: 200_000,
    modelId: "bench-model",
  } as never);
  // The least any real model call does with the assembled context: serialize the request body.
  if (serialize) sink += JSON.stringify({ model: "bench-model", messages: assembled!.messages }).length;
  await engine.commitTurn({ sessionId: "bench", advancementKey: key, messages: messages.slice(-4) });
}

async function measure(engine: OpenClawContextEngine, history: OcAgentMessage[], label: string, out: number[], serialize: boolean): Promise<void> {
  for (let i = 0; i < STEPS; i++) {
    const t0 = process.hrtime.bigint();
    await step(engine, history, `${label}-${out.length}`, serialize);
    out.push(Number(process.hrtime.bigint() - t0) / 1e3);
  }
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;

for (const serialize of [false, true]) {
  for (const turns of [10, 100]) {
    const history = transcript(turns);
    const adapter = createOpenClawContextEngine({ id: "noop", factory: () => new NoopEngine() });
    const bareTimes: number[] = [];
    const adapterTimes: number[] = [];
    await measure(bare, history, "warm", [], serialize);
    await measure(adapter, history, "warm", [], serialize);
    for (let b = 0; b < BLOCKS; b++) {
      await measure(bare, history, "bare", bareTimes, serialize);
      await measure(adapter, history, "adapter", adapterTimes, serialize);
    }
    const row = (name: string, xs: number[]) => `${name.padEnd(8)} median ${pct(xs, 50).toFixed(1)} µs  p95 ${pct(xs, 95).toFixed(1)} µs`;
    const what = serialize ? "assemble + request serialization + commitTurn" : "assemble + commitTurn only";
    console.log(`\n${history.length} messages, ${what}, ${BLOCKS}×${STEPS} steps each (Node ${process.versions.node})`);
    console.log(row("bare", bareTimes));
    console.log(row("adapter", adapterTimes));
    const over = (p: number) => (((pct(adapterTimes, p) - pct(bareTimes, p)) / pct(bareTimes, p)) * 100).toFixed(1);
    const abs = (pct(adapterTimes, 50) - pct(bareTimes, 50)).toFixed(1);
    console.log(`overhead median ${over(50)} % (${abs} µs)  p95 ${over(95)} %  (target < 5 %)`);
  }
}
if (sink < 0) console.log(sink);
