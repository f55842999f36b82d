// A process that hands a long history over and then ends without closing the engine: run by
// engine-import.test.ts. `exit: "kill"` (SIGKILL) leaves the background import mid-way, as a crash does;
// `exit: "exit"` (process.exit) lets the engine's exit listener store the rest (SQLite).
import { LcmEngine } from "../src/index.js";
import { agentConversation } from "./engine-helpers.js";

const { dataDir, config, turns, seed, sessionId, exit } = JSON.parse(process.env.LCM_CRASH_RUN ?? "{}") as {
  dataDir: string;
  config: Record<string, unknown>;
  turns: number;
  seed: number;
  sessionId: string;
  exit: "kill" | "exit";
};
const engine = new LcmEngine({ dataDir, contextLength: 8_000, config });
const live = await engine.compress(agentConversation(turns, seed), { sessionId });
const status = (engine.getStatus() as unknown as { lcm: { session?: { import?: { remaining: number } } } }).lcm.session?.import;
process.stdout.write(`${JSON.stringify({ live: live.length, remaining: status?.remaining ?? 0 })}\n`);
if (exit === "exit") process.exit(0);
process.kill(process.pid, "SIGKILL");
