// The redactor's CPU over the texts of the bench's seeded conversation (what LCM redacts when a history of that
// size is handed over at once), then over the real agent transcripts in the shared data (read at run time, when
// found): `BENCH_REDACT_MESSAGES=100000 npx -y pnpm@12.4.2 --filter @context-engine/bench redaction-cost`. Each
// round redacts every text once (one thread); prints CPU median / p95 over the rounds, the screen regex alone
// beside it, and the load.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createSecretRedactor, type Message, SECRET_SCREEN } from "@context-engine/core";
import { ConversationGenerator } from "./generate.js";
import { cpuMs, loadNow, summarise } from "./stats.js";

const size = Number(process.env.BENCH_REDACT_MESSAGES ?? 100_000);
const rounds = Number(process.env.BENCH_REDACT_ROUNDS ?? 7);

/** The texts LCM's encoder hands the redactor: string content, text parts, tool-call arguments. */
function textsOf(messages: readonly Message[]): string[] {
  const out: string[] = [];
  for (const m of messages as unknown as Array<Record<string, unknown>>) {
    if (typeof m.content === "string") out.push(m.content);
    else if (Array.isArray(m.content)) for (const p of m.content as Array<{ type?: string; text?: unknown }>) if (p?.type === "text" && typeof p.text === "string") out.push(p.text);
    if (Array.isArray(m.tool_calls)) for (const c of m.tool_calls as Array<{ function?: { arguments?: unknown } }>) if (typeof c.function?.arguments === "string") out.push(c.function.arguments);
  }
  return out;
}

function measure(label: string, run: (text: string) => boolean, texts: readonly string[]): void {
  const cpu: number[] = [];
  let hits = 0;
  for (let r = 0; r < rounds + 1; r++) {
    hits = 0;
    const c = cpuMs();
    for (const t of texts) if (run(t)) hits++;
    if (r > 0) cpu.push(cpuMs() - c); // the first round warms up
  }
  const s = summarise(cpu);
  console.log(`${label}: CPU median ${s.median.toFixed(0)} ms, p95 ${s.p95.toFixed(0)} ms (${rounds} rounds, ${hits} texts hit), load ${loadNow()}`);
}

/** `CONTEXT_ENGINE_DATA_DIR`, else the nearest `shared/data` above the working directory; null when there is none. */
function dataDir(): string | null {
  if (process.env.CONTEXT_ENGINE_DATA_DIR) return process.env.CONTEXT_ENGINE_DATA_DIR;
  for (let dir = resolve("."); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "shared", "data"))) return join(dir, "shared", "data");
    if (dirname(dir) === dir) return null;
  }
}

/** The messages of the real agent transcripts (mini-swe-agent, OpenHands, tau-bench), or [] without the data. */
function realMessages(): Message[] {
  const root = dataDir();
  const traces = root ? join(root, "agent-traces") : "";
  if (!root || !existsSync(traces)) return [];
  const read = (path: string): unknown => JSON.parse(readFileSync(join(traces, path), "utf8"));
  const out: Message[] = [];
  for (const f of readdirSync(join(traces, "mini-swe-agent-gemini3pro")).filter((f) => f.endsWith(".traj.json"))) {
    out.push(...(read(`mini-swe-agent-gemini3pro/${f}`) as { messages: Message[] }).messages);
  }
  for (const s of read("swe-gym-openhands/sample_raw.json") as Array<{ messages: Message[] }>) out.push(...s.messages);
  for (const s of read("tau-bench/gpt-4o-airline.json") as Array<{ traj: Message[] }>) out.push(...s.traj);
  return out;
}

const redactor = createSecretRedactor();
const real = realMessages();
for (const [label, messages] of [[`${size} seeded messages`, new ConversationGenerator().until(size)], [`${real.length} real transcript messages`, real]] as const) {
  if (messages.length === 0) continue;
  const texts = textsOf(messages);
  const chars = texts.reduce((n, t) => n + t.length, 0);
  console.log(`${label}: ${texts.length} texts, ${(chars / 1e6).toFixed(1)}M characters`);
  measure("redactText (screen, then the rules on what it flags)", (t) => redactor.redactText(t).text !== t, texts);
  measure("the screen regex alone", (t) => SECRET_SCREEN.test(t), texts);
}
