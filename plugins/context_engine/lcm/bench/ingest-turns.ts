import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "@context-engine/core";
import { openLcmStore } from "../src/store/index.js";
import { ConversationGenerator, percentile } from "./synthetic.js";

/**
 * SQLite `store.ingest` turn by turn, the way a host calls it: each turn sends
 * the whole transcript so far (system prompt + every earlier turn + the new
 * one), so alignment runs over a growing list and appends only the new turn.
 *   LCM_BENCH_TURNS_MESSAGES (default 20,000): transcript length at the end
 *   LCM_BENCH_TURNS_RUNS (default 3): whole runs, each on a fresh file
 * Prints the median and p95 of the per-turn ingest time over the last half of
 * the turns (the transcript is long there), per run and overall.
 */
const TOTAL = Number(process.env.LCM_BENCH_TURNS_MESSAGES ?? 20_000);
const RUNS = Number(process.env.LCM_BENCH_TURNS_RUNS ?? 3);

function run(seed: number): number[] {
  const gen = new ConversationGenerator({ seed });
  const dir = mkdtempSync(join(tmpdir(), "lcm-bench-turns-"));
  const store = openLcmStore({ dataDir: dir });
  try {
    const conv = store.conversation("bench-turns");
    const transcript: Message[] = [{ role: "system", content: "You are a coding agent." }];
    const times: number[] = [];
    while (transcript.length < TOTAL) {
      transcript.push(...gen.turn());
      const t0 = performance.now();
      const r = store.ingest(conv.id, transcript);
      times.push(performance.now() - t0);
      if (r.alignment === "no-overlap" || r.alignment === "hash-fallback") throw new Error(`unexpected alignment ${r.alignment}`);
    }
    const stored = store.getConversation(conv.id)!.messageCount;
    if (stored !== transcript.length) throw new Error(`stored ${stored} of ${transcript.length}`);
    return times.slice(Math.floor(times.length / 2)).sort((a, b) => a - b);
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const all: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const t = run(42 + i);
  all.push(...t);
  console.log(`run ${i + 1}: ${t.length} turns, p50 ${percentile(t, 50).toFixed(3)} ms, p95 ${percentile(t, 95).toFixed(3)} ms`);
}
all.sort((a, b) => a - b);
console.log(`ingest per turn (${TOTAL} messages, second half of turns, ${RUNS} runs): p50 ${percentile(all, 50).toFixed(3)} ms, p95 ${percentile(all, 95).toFixed(3)} ms`);
