/**
 * Replay throughput on the bundled demo session: wall time per engine, per
 * request, and the share spent compacting. Prints figures; asserts nothing.
 *
 *   npm run bench            (tsx bench/replay.ts [rounds] [context length])
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEstimator } from "@context-engine/core";
import { loadConfig } from "@context-engine/plugin-loader";
import { readSessions } from "@context-engine/sessions";
import { silentLogger } from "@context-engine/core";
import { pluginEngineFactory } from "../src/replay/engines.js";
import { checkRecoverable, isLossless } from "../src/replay/recoverability.js";
import { runReplay } from "../src/replay/run.js";
import { DEMO_SESSION_FILE, packageDataDir } from "../src/paths.js";

const rounds = Number(process.argv[2] ?? 3);
const contextLength = Number(process.argv[3] ?? 12_000);
const sessions = await readSessions(join(packageDataDir()!, DEMO_SESSION_FILE));
const loaded = await loadConfig({ cwd: tmpdir(), env: {} });
const factory = pluginEngineFactory({ loaded, cwd: process.cwd(), env: {}, logger: silentLogger });

console.log(`replay bench: ${sessions[0]!.id}, ${sessions[0]!.messages.length} messages, context length ${contextLength}, ${rounds} rounds`);
for (const engine of ["compressor", "lcm"]) {
  const times: number[] = [];
  let requests = 0;
  let compactionMs = 0;
  let checkMs = 0;
  for (let i = 0; i < rounds; i++) {
    const dataDir = mkdtempSync(join(tmpdir(), "ce-bench-"));
    const started = performance.now();
    const report = await runReplay({ sessions, engines: [engine], createEngine: factory, contextLength, counter: createEstimator(), dataDir, isLossless, checkRecoverable: async (a) => {
      const t = performance.now();
      const r = await checkRecoverable(a);
      checkMs += performance.now() - t;
      return r;
    } });
    times.push(performance.now() - started);
    const run = report.sessions[0]!.runs[0]!;
    requests = run.summary.requests;
    compactionMs += run.summary.compactionTimeMs;
    rmSync(dataDir, { recursive: true, force: true });
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  console.log(
    `${engine.padEnd(10)} median ${median.toFixed(0).padStart(5)} ms per replay · ${(median / requests).toFixed(2)} ms per request (${requests} requests) · ` +
      `compaction ${(compactionMs / rounds).toFixed(0)} ms · lossless check ${(checkMs / rounds).toFixed(0)} ms per replay`,
  );
}
