import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { LcmEngine } from "@context-engine/lcm";
import { runEngineSuite, type BenchStore } from "./engine-suite.js";
import { benchSchema, countPgRoundTrips, DEFAULT_PG_URL, dropSchema } from "./round-trips.js";
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
    BENCH_STORE: z.enum(["sqlite", "postgres"]).default("sqlite"),
    BENCH_PG_URL: z.string().min(1).default(DEFAULT_PG_URL),
    /** PostgreSQL: print the queries of the last recorded call. */
    BENCH_TRACE_TRIPS: z.enum(["0", "1"]).default("0"),
  })
  .parse(process.env);

interface Call {
  at: number;
  ms: number;
  cpu: number;
  /** PostgreSQL queries sent during the call (0 on SQLite). */
  trips: number;
}

const store: BenchStore = env.BENCH_STORE === "postgres" ? { kind: "postgres", url: env.BENCH_PG_URL, schema: benchSchema("trigger") } : { kind: "sqlite" };
const counter = store.kind === "postgres" ? countPgRoundTrips() : null;
let lastTrace: string[] = [];

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
  const q = counter?.count() ?? 0;
  if (record && env.BENCH_TRACE_TRIPS === "1") lastTrace = counter?.trace(true) ?? [];
  try {
    return await original.apply(this, args);
  } finally {
    const ms = performance.now() - t;
    const cpu = cpuMs() - c;
    const trips = (counter?.count() ?? 0) - q;
    if (record && env.BENCH_TRACE_TRIPS === "1") lastTrace = counter?.trace(false) ?? [];
    if (record) {
      calls.push({ at, ms, cpu, trips });
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
    store,
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
  if (store.kind === "postgres") await dropSchema(store.url, store.schema);
}
const t = timing(
  calls.map((c) => c.ms),
  calls.map((c) => c.cpu),
);
const f = (x: number) => x.toFixed(2);
console.log(
  `trigger ${env.BENCH_TRIGGER_FROM}..${env.BENCH_TRIGGER_SIZE}: wall ${f(t.median)} / ${f(t.p95)} (max ${f(t.max)}) · CPU ${f(t.cpu.median)} / ${f(t.cpu.p95)} (max ${f(t.cpu.max)}) ms, n=${t.n}; ` +
    (counter ? `round trips per call ${quantiles(calls.map((c) => c.trips))}; ` : "") +
    `${store.kind}; load ${load0} -> ${t.load}; run ${((performance.now() - t0) / 1000).toFixed(1)} s wall, ${((cpuMs() - cpu0) / 1000).toFixed(1)} s CPU`,
);
/** Median / p95 / max of counts (nearest rank). */
function quantiles(xs: number[]): string {
  const sorted = [...xs].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
  return `${at(0.5)} / ${at(0.95)} (max ${sorted.at(-1) ?? 0})`;
}

if (lastTrace.length) console.log(`queries of the last recorded call (${lastTrace.length}):\n${lastTrace.join("\n")}`);
if (session && env.BENCH_PROFILE_TRIGGER) {
  writeFileSync(env.BENCH_PROFILE_TRIGGER, JSON.stringify(profiles));
  session.disconnect();
}
