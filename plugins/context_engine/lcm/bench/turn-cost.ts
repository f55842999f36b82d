import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "@context-engine/core";
import { LcmEngine } from "../src/index.js";
import { ConversationGenerator, percentile } from "./synthetic.js";

/**
 * `onTurnComplete` per turn with a long history, through the public hook, the way a host calls it:
 * the whole transcript (a fresh copy each turn, as hosts hand it over) plus, for a host that names
 * its turns, `meta.turnId` and `meta.turnMessages`; or the whole list alone (a list-only host, read
 * from its recorded writer position). The history is stored first by the same hook (one turn of
 * LCM_BENCH_TURN_HISTORY messages, default 100,000) and its full-text backlog indexed before timing,
 * background preparation is off, and every turn
 * is checked: the store holds exactly the transcript's messages afterwards.
 *   LCM_BENCH_TURN_HISTORY (default 100000), LCM_BENCH_TURN_TURNS (default 60)
 * Prints p50/p95 of CPU time (user + system of this process) and wall time per call, and the load.
 */
const HISTORY = Number(process.env.LCM_BENCH_TURN_HISTORY ?? 100_000);
const TURNS = Number(process.env.LCM_BENCH_TURN_TURNS ?? 60);

async function run(keyed: boolean): Promise<{ cpu: number[]; wall: number[] }> {
  const dir = mkdtempSync(join(tmpdir(), "lcm-bench-turn-"));
  const engine = new LcmEngine({ dataDir: dir, contextLength: 10_000_000, config: { prepare_in_background: false } });
  try {
    const gen = new ConversationGenerator({ seed: keyed ? 1 : 2 });
    const transcript: Message[] = [{ role: "system", content: "You are a coding agent." }];
    while (transcript.length < HISTORY) transcript.push(...gen.turn());
    await engine.onTurnComplete(transcript.slice(), null, { sessionId: "bench", turnId: "import", turnMessages: transcript.slice(1) });
    await engine.whenIdle("bench");
    // The import's full-text backlog is indexed in the background; finish it first, so its slices are not timed.
    while ((await engine.store.indexPending({ maxMs: 1_000 })).remaining > 0);
    const cpu: number[] = [];
    const wall: number[] = [];
    for (let t = 0; t < TURNS; t++) {
      const turn = gen.turn();
      transcript.push(...turn);
      const list = transcript.slice();
      const meta = keyed ? { sessionId: "bench", turnId: `t${t}`, turnMessages: turn } : { sessionId: "bench" };
      const c0 = process.cpuUsage();
      const w0 = performance.now();
      await engine.onTurnComplete(list, null, meta);
      wall.push(performance.now() - w0);
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
    }
    const conv = (await engine.store.findConversation("bench"))!;
    if (conv.messageCount !== transcript.length - 1) throw new Error(`stored ${conv.messageCount} of ${transcript.length - 1}`);
    return { cpu: cpu.sort((a, b) => a - b), wall: wall.sort((a, b) => a - b) };
  } finally {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (t: number[]) => `p50 ${percentile(t, 50).toFixed(2)} ms, p95 ${percentile(t, 95).toFixed(2)} ms`;
for (const keyed of [true, false]) {
  const load = loadavg()[0]!.toFixed(1);
  const r = await run(keyed);
  console.log(
    `onTurnComplete at ${HISTORY} messages, ${keyed ? "named turns" : "whole list only"}, ${TURNS} turns: CPU ${fmt(r.cpu)}; wall ${fmt(r.wall)}; load ${load} -> ${loadavg()[0]!.toFixed(1)}`,
  );
}
