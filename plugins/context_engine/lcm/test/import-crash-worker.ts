// A process that hands a long history over and then ends without closing the engine: run by
// engine-import.test.ts. `exit: "kill"` (SIGKILL) leaves the background import mid-way, as a crash does;
// `exit: "exit"` (process.exit) lets the engine's exit listener store the rest (SQLite).
import { LcmEngine } from "../src/index.js";
import { agentConversation } from "./engine-helpers.js";

// `also`: more sessions of the same engine, each handed `agentConversation(turns, seed + i + 1)` after the first.
const { dataDir, config, turns, seed, sessionId, exit, also = [] } = JSON.parse(process.env.LCM_CRASH_RUN ?? "{}") as {
  dataDir: string;
  config: Record<string, unknown>;
  turns: number;
  seed: number;
  sessionId: string;
  exit: "kill" | "exit";
  also?: string[];
};
const engine = new LcmEngine({ dataDir, contextLength: 8_000, config });
const importLeft = () => (engine.getStatus() as unknown as { lcm: { session?: { import?: { remaining: number } } } }).lcm.session?.import?.remaining ?? 0;
const live = await engine.compress(agentConversation(turns, seed), { sessionId });
const remaining = importLeft();
const alsoRemaining: number[] = [];
for (const [i, id] of also.entries()) {
  await engine.compress(agentConversation(turns, seed + i + 1), { sessionId: id });
  alsoRemaining.push(importLeft());
}
process.stdout.write(`${JSON.stringify({ live: live.length, remaining, alsoRemaining })}\n`);
if (exit === "exit") process.exit(0);
process.kill(process.pid, "SIGKILL");
