// The redactor's CPU over the texts of the bench's seeded conversation (what LCM redacts when a history of that
// size is handed over at once): `BENCH_REDACT_MESSAGES=100000 npx -y pnpm@12.4.2 --filter @context-engine/bench
// redaction-cost`. Each round redacts every text once (one thread); prints CPU median / p95 over the rounds, the
// screen regex alone beside it, and the load.
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

const texts = textsOf(new ConversationGenerator().until(size));
const chars = texts.reduce((n, t) => n + t.length, 0);
console.log(`${size} messages: ${texts.length} texts, ${(chars / 1e6).toFixed(1)}M characters`);
const redactor = createSecretRedactor();
measure("redactText (screen, then the rules on what it flags)", (t) => redactor.redactText(t).text !== t, texts);
measure("the screen regex alone", (t) => SECRET_SCREEN.test(t), texts);
