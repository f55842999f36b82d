/**
 * Cost of the compaction ledger on a long session: recording one compaction
 * of a 2,000-message conversation (digests, order-keeping diff, prefix bytes,
 * copies of what left) and undoing it (`unfoldCompaction` + the pins block).
 * The conversation is compacted the way engines do: the head and a tail are
 * kept, the middle (1,800 messages) is replaced by one summary.
 *
 * Run: npx tsx bench/ledger.ts   (BENCH_ITERATIONS, default 30; BENCH_LEDGER_SIZE, default 2,000: the
 * kept tail grows with it, which is what made undo quadratic before its digests were kept in a set)
 */
import type { Logger, Message } from "@context-engine/core";
import { SessionLedger } from "../src/ledger/ledger.js";
import { unfoldCompaction } from "../src/ledger/restore.js";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 30);
const SIZE = Number(process.env.BENCH_LEDGER_SIZE ?? 2_000);
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;

function conversation(): Message[] {
  const out: Message[] = [{ role: "system", content: "You are a coding agent." }];
  for (let i = 1; i < SIZE; i++) {
    out.push(i % 2 ? { role: "user", content: `question ${i}: ${"some words about the topic ".repeat(12)}` } : { role: "assistant", content: `answer ${i}: ${"a reply with detail ".repeat(15)}` });
  }
  return out;
}

function stats(values: number[]) {
  const s = [...values].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)]!, p95: s[Math.min(s.length - 1, Math.ceil(s.length * 0.95) - 1)]! };
}

const before = conversation();
const after = [...before.slice(0, 4), { role: "user", content: "[summary of 1,800 messages]" } as Message, ...before.slice(1_804)];
const record: number[] = [];
const recordCpu: number[] = [];
const undo: number[] = [];
const undoCpu: number[] = [];
for (let i = 0; i < ITERATIONS + 3; i++) {
  const ledger = new SessionLedger(null, quiet);
  let cpu = process.cpuUsage();
  let t = performance.now();
  const entry = ledger.recordCompaction({ sessionId: "s", engine: "bench", trigger: "manual", focusTopic: null, durationMs: 0, tokensBefore: 0, tokensAfter: 0, before, after });
  const r = performance.now() - t;
  const rc = process.cpuUsage(cpu);
  cpu = process.cpuUsage();
  t = performance.now();
  const back = unfoldCompaction(after, entry, ledger.active());
  const u = performance.now() - t;
  const uc = process.cpuUsage(cpu);
  if (back.messages.length !== before.length) throw new Error("undo did not give the list back");
  if (i < 3) continue; // warm-up
  record.push(r);
  recordCpu.push((rc.user + rc.system) / 1000);
  undo.push(u);
  undoCpu.push((uc.user + uc.system) / 1000);
}
const f = (x: number) => x.toFixed(1);
const line = (name: string, wall: number[], cpu: number[]) => {
  const w = stats(wall);
  const c = stats(cpu);
  return `${name}: wall median ${f(w.median)} ms, p95 ${f(w.p95)} ms; CPU median ${f(c.median)} ms, p95 ${f(c.p95)} ms`;
};
console.log(`ledger on a ${SIZE}-message conversation, ${ITERATIONS} runs:`);
console.log(line("record one compaction", record, recordCpu));
console.log(line("undo it", undo, undoCpu));
