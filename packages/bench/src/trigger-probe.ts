import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { LcmEngine } from "@context-engine/lcm";
import { runEngineSuite } from "./engine-suite.js";
import { cpuMs, loadNow, timing } from "./stats.js";

/**
 * `pnpm trigger-probe`: the compaction trigger (the `compress()` at the
 * threshold) alone, with more calls than the full bench gives at 10k (there the
 * p95 is the largest of ten). The engine suite grows one conversation to
 * `BENCH_TRIGGER_SIZE` messages (tools untimed) and every threshold
 * `compress()` from `BENCH_TRIGGER_FROM` messages on is recorded; with
 * `BENCH_PROFILE_TRIGGER=<file.cpuprofile>` each of them is also sampled by the
 * inspector's profiler (inside the call only) into one profile.
 */
const env = z
  .object({
    BENCH_TRIGGER_SIZE: z.coerce.number().int().min(2_000).default(20_000),
    BENCH_TRIGGER_FROM: z.coerce.number().int().min(0).default(5_000),
    BENCH_PROFILE_TRIGGER: z.string().min(1).optional(),
  })
  .parse(process.env);

interface Call {
  at: number;
  ms: number;
  cpu: number;
}

const calls: Call[] = [];
let messagesSoFar = 0;
const session = env.BENCH_PROFILE_TRIGGER ? new Session() : null;
const profiles: unknown[] = [];
if (session) {
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 100 });
}

// Messages emitted so far: the suite hands each turn's messages to onTurnComplete.
const onTurn = LcmEngine.prototype.onTurnComplete;
LcmEngine.prototype.onTurnComplete = function (this: LcmEngine, ...args: Parameters<typeof onTurn>) {
  messagesSoFar += (args[2] as { turnMessages?: unknown[] } | undefined)?.turnMessages?.length ?? 0;
  return onTurn.apply(this, args);
};

// The suite calls compress() only at the threshold when tools are off: every call here is a trigger.
const original = LcmEngine.prototype.compress;
LcmEngine.prototype.compress = async function (this: LcmEngine, ...args: Parameters<typeof original>) {
  const at = messagesSoFar;
  const record = at >= env.BENCH_TRIGGER_FROM;
  if (record && session) await session.post("Profiler.start");
  const t = performance.now();
  const c = cpuMs();
  try {
    return await original.apply(this, args);
  } finally {
    const ms = performance.now() - t;
    const cpu = cpuMs() - c;
    if (record) {
      calls.push({ at, ms, cpu });
      if (session) profiles.push((await session.post("Profiler.stop")).profile);
    }
  }
};

const dir = mkdtempSync(join(tmpdir(), "lcm-trigger-"));
const load0 = loadNow();
const cpu0 = cpuMs();
const t0 = performance.now();
try {
  await runEngineSuite({
    sizes: [env.BENCH_TRIGGER_SIZE],
    dir,
    tools: false,
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const t = timing(
  calls.map((c) => c.ms),
  calls.map((c) => c.cpu),
);
const f = (x: number) => x.toFixed(2);
console.log(
  `trigger ${env.BENCH_TRIGGER_FROM}..${env.BENCH_TRIGGER_SIZE}: wall ${f(t.median)} / ${f(t.p95)} (max ${f(t.max)}) · CPU ${f(t.cpu.median)} / ${f(t.cpu.p95)} (max ${f(t.cpu.max)}) ms, n=${t.n}; ` +
    `load ${load0} -> ${t.load}; run ${((performance.now() - t0) / 1000).toFixed(1)} s wall, ${((cpuMs() - cpu0) / 1000).toFixed(1)} s CPU`,
);
if (session && env.BENCH_PROFILE_TRIGGER) {
  writeFileSync(env.BENCH_PROFILE_TRIGGER, JSON.stringify(profiles));
  session.disconnect();
}
