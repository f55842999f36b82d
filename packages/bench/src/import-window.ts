// How long an imported history's background import leaves part of it unstored (the window a killed process
// would need a list to finish), and how long a process.exit takes to store what is left (SQLite).
// `BENCH_IMPORTED=100000 [BENCH_STORE=postgres] npx -y pnpm@12.4.2 --filter @context-engine/bench import-window [exit]`
// (exit: SQLite only; PostgreSQL has no synchronous driver to finish with).
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { LcmEngine } from "@context-engine/lcm";
import { storeConfig, type BenchStore } from "./engine-suite.js";
import { ConversationGenerator } from "./generate.js";
import { benchSchema, DEFAULT_PG_URL, dropSchema } from "./round-trips.js";

const size = Number(process.env.BENCH_IMPORTED ?? 100_000);
const mode = process.argv.slice(2).includes("exit") ? "exit" : "window";
const dir = mkdtempSync(join(tmpdir(), "import-window-"));
const history = new ConversationGenerator().until(size);
const store: BenchStore = process.env.BENCH_STORE === "postgres" ? { kind: "postgres", url: process.env.BENCH_PG_URL ?? DEFAULT_PG_URL, schema: benchSchema("window") } : { kind: "sqlite" };
const engine = new LcmEngine({ dataDir: dir, contextLength: 128_000, config: storeConfig(store, dir) });
const remaining = () => (engine.getStatus() as unknown as { lcm: { session?: { import?: { remaining: number } } } }).lcm.session?.import?.remaining ?? 0;
const started = performance.now();
await engine.compress(history, { sessionId: "w" });
const hook = performance.now() - started;
const left = remaining();
if (mode === "exit") {
  process.on("exit", () => {
    const t = performance.now();
    // Runs after the engine's own listener (registered first): the time between is the exit finish.
    console.log(JSON.stringify({ size, hookMs: Math.round(hook), leftAtExit: left, exitStoredMs: Math.round(t - exitAt), load: loadavg()[0] }));
    rmSync(dir, { recursive: true, force: true });
  });
  const exitAt = performance.now();
  process.exit(0);
}
while (remaining() > 0) await new Promise((r) => setTimeout(r, 20));
const windowMs = performance.now() - started;
const conv = (await engine.store.findConversation("w"))!;
console.log(JSON.stringify({ store: store.kind, size, hookMs: Math.round(hook), leftAfterHook: left, importWindowMs: Math.round(windowMs), stored: conv.messageCount, load: loadavg()[0] }));
await engine.close();
rmSync(dir, { recursive: true, force: true });
if (store.kind === "postgres") await dropSchema(store.url, store.schema);
