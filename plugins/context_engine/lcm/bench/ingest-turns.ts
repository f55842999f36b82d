import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "@context-engine/core";
import { openLcmStore } from "../src/store/index.js";
import type { WriterPosition } from "../src/store/types.js";
import { ConversationGenerator, percentile } from "./synthetic.js";

/**
 * SQLite `store.ingest` turn by turn, the way the engine calls it for a host
 * that sends only whole lists: each turn sends the whole transcript so far
 * (system prompt + every earlier turn + the new one) with the writer's position
 * from the previous call, so only the new turn is read and appended.
 *   LCM_BENCH_TURNS_MESSAGES (default 20,000): transcript length at the end
 *   LCM_BENCH_TURNS_RUNS (default 3): whole runs, each on a fresh file
 * Then the same whole transcript 200 times more (a host retrying a turn): nothing to append,
 * so that figure is the position check alone.
 * Prints the median and p95 of the per-turn ingest time over the last half of
 * the turns (the transcript is long there), per run and overall: wall time, and
 * this process's CPU time (user + system), which a loaded machine disturbs less.
 */
const TOTAL = Number(process.env.LCM_BENCH_TURNS_MESSAGES ?? 20_000);
const RUNS = Number(process.env.LCM_BENCH_TURNS_RUNS ?? 3);

function run(seed: number): { wall: number[]; cpu: number[]; retry: number[] } {
  const gen = new ConversationGenerator({ seed });
  const dir = mkdtempSync(join(tmpdir(), "lcm-bench-turns-"));
  const store = openLcmStore({ dataDir: dir });
  try {
    const conv = store.conversation("bench-turns");
    const transcript: Message[] = [{ role: "system", content: "You are a coding agent." }];
    const times: number[] = [];
    let positions: WriterPosition[] = [];
    const cpu: number[] = [];
    while (transcript.length < TOTAL) {
      transcript.push(...gen.turn());
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const r = store.ingest(conv.id, transcript, { positions });
      positions = r.position ? [r.position] : [];
      times.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
      if (r.alignment !== "position" && r.alignment !== "empty-store") throw new Error(`unexpected alignment ${r.alignment}`);
    }
    const stored = store.getConversation(conv.id)!.messageCount;
    if (stored !== transcript.length) throw new Error(`stored ${stored} of ${transcript.length}`);
    const retry: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t0 = performance.now();
      if (store.ingest(conv.id, transcript, { positions }).appended !== 0) throw new Error("a retry appended");
      retry.push(performance.now() - t0);
    }
    const half = (list: number[]) => list.slice(Math.floor(list.length / 2)).sort((a, b) => a - b);
    return { wall: half(times), cpu: half(cpu), retry: retry.sort((a, b) => a - b) };
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (label: string, t: readonly number[]) => `${label} p50 ${percentile(t, 50).toFixed(3)} ms, p95 ${percentile(t, 95).toFixed(3)} ms`;
const wall: number[] = [];
const cpu: number[] = [];
const retry: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const t = run(42 + i);
  wall.push(...t.wall);
  cpu.push(...t.cpu);
  retry.push(...t.retry);
  console.log(`run ${i + 1}: ${t.wall.length} turns; ${fmt("wall", t.wall)}; ${fmt("cpu", t.cpu)}; ${fmt("no-op retry", t.retry)}`);
}
wall.sort((a, b) => a - b);
cpu.sort((a, b) => a - b);
retry.sort((a, b) => a - b);
console.log(`ingest per turn (${TOTAL} messages, second half of turns, ${RUNS} runs): ${fmt("wall", wall)}; ${fmt("cpu", cpu)}; ${fmt("no-op retry", retry)}`);
