// The host suite's imported-history case alone, for one engine and size (the figures quoted in the
// 2026-12-04 closing note): `BENCH_ENGINE=lcm BENCH_IMPORTED=100000 BENCH_HOST_TURNS=20 npx -y pnpm@12.4.2
// --filter @context-engine/bench host-imported`. Same driver as `pnpm bench` (real AgentHost and OpenAI client
// against the loopback server, every turn's context checked).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runHostSuite } from "./host-suite.js";

const engine = process.env.BENCH_ENGINE === "compressor" ? "compressor" : "lcm";
const size = Number(process.env.BENCH_IMPORTED ?? 10_000);
const turns = Number(process.env.BENCH_HOST_TURNS ?? 20);
if (!Number.isInteger(size) || size < 100) throw new Error("BENCH_IMPORTED: a message count of at least 100");
const dir = mkdtempSync(join(tmpdir(), "bench-imported-"));
try {
  const [r] = await runHostSuite({ sizes: [size], engines: [engine], dir, turns, log: console.log });
  console.log(JSON.stringify({ engine, history: size, firstTurnMs: r!.firstTurnMs, perTurn: r!.perTurn }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
