// The host suite's imported-history case alone, for one engine, store and size:
// `BENCH_ENGINE=lcm BENCH_IMPORTED=100000 BENCH_HOST_TURNS=20 [BENCH_STORE=postgres] npx -y pnpm@12.4.2
// --filter @context-engine/bench host-imported`. Same driver as `pnpm bench` (real AgentHost and OpenAI client
// against the loopback server, every turn's context checked). Prints wall and CPU time and the load.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BenchStore } from "./engine-suite.js";
import { runHostSuite } from "./host-suite.js";
import { benchSchema, DEFAULT_PG_URL, dropSchema } from "./round-trips.js";

const engine = process.env.BENCH_ENGINE === "compressor" ? "compressor" : "lcm";
const size = Number(process.env.BENCH_IMPORTED ?? 10_000);
const turns = Number(process.env.BENCH_HOST_TURNS ?? 20);
if (!Number.isInteger(size) || size < 100) throw new Error("BENCH_IMPORTED: a message count of at least 100");
if (process.env.BENCH_STORE && !["sqlite", "postgres"].includes(process.env.BENCH_STORE)) throw new Error("BENCH_STORE: sqlite or postgres");
const store: BenchStore =
  process.env.BENCH_STORE === "postgres" ? { kind: "postgres", url: process.env.BENCH_PG_URL ?? DEFAULT_PG_URL, schema: benchSchema("imported") } : { kind: "sqlite" };
const dir = mkdtempSync(join(tmpdir(), "bench-imported-"));
try {
  const [r] = await runHostSuite({ sizes: [size], engines: [engine], store, dir, turns, log: console.log });
  const { firstTurnMs, firstTurnCpuMs, firstTurnEngineMs, firstTurnEngineCpuMs, firstTurnBackgroundCpuMs, firstTurnLoad, perTurn, perTurnBackgroundCpu, roundTrips, backlog } = r!;
  console.log(JSON.stringify({ engine, store: store.kind, history: size, firstTurnMs, firstTurnCpuMs, firstTurnEngineMs, firstTurnEngineCpuMs, firstTurnBackgroundCpuMs, firstTurnLoad, perTurn, perTurnBackgroundCpu, roundTrips, backlog }));
} finally {
  rmSync(dir, { recursive: true, force: true });
  if (store.kind === "postgres") await dropSchema(store.url, store.schema);
}
