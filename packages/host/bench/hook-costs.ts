/**
 * What the per-turn and session hooks of the engines we ship cost through the
 * real host: the built-in compressor and LCM (SQLite, loaded by the plugin
 * loader), a LoCoMo conversation replayed turn by turn against a loopback
 * OpenAI server. The host's default hook bounds (src/config.ts) are chosen
 * from these figures: far above the slowest call measured here, low enough
 * that a hung engine costs a turn seconds, not minutes.
 *
 * Run: npx tsx bench/hook-costs.ts (build plugins/context_engine/lcm first).
 * BENCH_TURNS (default 120) sets how many turns are replayed.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ContextCompressor } from "@context-engine/compressor";
import { overridesHook } from "@context-engine/core";
import type { ContextEngine } from "@context-engine/core";
import { loadEngine } from "@context-engine/plugin-loader";
import { AgentHost, createOpenAIChatModel } from "../src/index.js";
import { FakeOpenAIServer } from "../test/support/fake-openai-server.js";

const here = dirname(fileURLToPath(import.meta.url));
const TURNS = Number(process.env.BENCH_TURNS ?? 120);
const HOOKS = ["updateModel", "onSessionStart", "selectContext", "onTurnComplete", "handleToolCall", "onSessionEnd"] as const;

/** LoCoMo's first conversation as alternating user texts (CC BY-NC 4.0, used for measurement only). */
function locomoTurns(): string[] {
  const file = resolve(here, "../../../../shared/data/locomo/locomo7.json");
  const fallback = Array.from({ length: TURNS }, (_, i) => `Turn ${i}: we talked about the trip to Lisbon and the ${i}th photo. ${"detail ".repeat(40)}`);
  try {
    const data = JSON.parse(readFileSync(file, "utf8")) as Array<{ conversation: Record<string, unknown> }>;
    const conv = data[0]!.conversation;
    const out: string[] = [];
    for (let s = 1; out.length < TURNS && conv[`session_${s}`]; s++) {
      for (const turn of conv[`session_${s}`] as Array<{ speaker: string; text: string }>) out.push(`${turn.speaker}: ${turn.text}`);
    }
    return out.length >= TURNS ? out.slice(0, TURNS) : fallback;
  } catch {
    return fallback;
  }
}

/** Wrap the hooks the engine really overrides with timers (inherited no-ops stay untouched, so the host keeps skipping them). */
function timeHooks(engine: ContextEngine): Map<string, number[]> {
  const times = new Map<string, number[]>();
  for (const hook of HOOKS) {
    if ((hook === "selectContext" || hook === "onTurnComplete") && !overridesHook(engine, hook)) continue;
    const original = (engine as unknown as Record<string, (...args: unknown[]) => unknown>)[hook]!.bind(engine);
    times.set(hook, []);
    (engine as unknown as Record<string, unknown>)[hook] = async (...args: unknown[]) => {
      const started = performance.now();
      try {
        return await original(...args);
      } finally {
        times.get(hook)!.push(performance.now() - started);
      }
    };
  }
  return times;
}

async function drive(label: string, engine: ContextEngine, server: FakeOpenAIServer): Promise<void> {
  const times = timeHooks(engine);
  const chatModel = createOpenAIChatModel({ baseURL: server.baseURL, apiKey: server.apiKey, model: "bench-model", maxRetries: 0 });
  // Bounds off: measure what the engine takes, however long.
  const zero = Object.fromEntries(["selectContext", "onTurnComplete", "handleToolCall", "onSessionStart", "onSessionEnd", "onSessionReset", "updateModel"].map((k) => [k, 0]));
  const host = new AgentHost({ engine, chatModel, config: { hookTimeouts: zero } });
  const tools = engine.getToolSchemas().map((t) => t.name);
  let n = 0;
  server.script(() => {
    n++;
    // Every tenth turn the model calls the engine's first tool once.
    if (tools[0] && n % 10 === 0) return { toolCalls: [{ id: `t${n}`, name: tools[0], arguments: { query: "photo" } }] };
    return { content: `Reply ${n}: noted.`, usage: { prompt_tokens: 1_000 + n * 40, completion_tokens: 20, total_tokens: 1_020 + n * 40 } };
  });
  const session = await host.openSession({ model: "bench-model", contextLength: 32_000, systemPrompt: "You are a helpful companion." });
  for (const text of locomoTurns()) await session.send(text);
  await session.end();
  await host.close();
  console.log(`\n${label} (${TURNS} turns)`);
  for (const [hook, list] of times) {
    if (list.length === 0) continue;
    const sorted = [...list].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(2);
    console.log(`  ${hook.padEnd(15)} n=${String(list.length).padStart(4)}  p50=${at(0.5)} ms  p95=${at(0.95)} ms  max=${sorted.at(-1)!.toFixed(2)} ms`);
  }
}

const server = await new FakeOpenAIServer().start();
const home = mkdtempSync(join(tmpdir(), "ce-hook-costs-"));
try {
  await drive("compressor", new ContextCompressor({ contextLength: 32_000, model: "bench-model" }), server);
  const bundledDir = resolve(here, "../../../plugins/context_engine");
  const loaded = await loadEngine(undefined, { contextLength: 32_000, model: "bench-model" }, { engine: "lcm", cwd: home, home, bundledDir, nodeModules: false, env: {} });
  if (loaded.name !== "lcm") throw new Error(`LCM did not load: ${loaded.fallbackReason ?? "unknown"}`);
  await drive("lcm (SQLite)", loaded.engine, server);
  await (loaded.engine as { close?: () => unknown }).close?.();
} finally {
  await server.stop();
  rmSync(home, { recursive: true, force: true });
}
