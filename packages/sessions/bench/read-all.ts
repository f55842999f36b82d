// Prints how long reading and converting every session in shared/data takes.
import { performance } from "node:perf_hooks";
import { readSessions, resolveDataDir } from "../src/index.js";

const dir = resolveDataDir();
if (!dir) {
  console.log("sessions bench: no shared/data directory found (set CONTEXT_ENGINE_DATA_DIR); nothing measured");
  process.exit(0);
}
const runs: number[] = [];
let sessions = 0;
let messages = 0;
for (let i = 0; i < 3; i++) {
  const t = performance.now();
  const all = await readSessions(dir);
  runs.push(performance.now() - t);
  sessions = all.length;
  messages = all.reduce((n, s) => n + s.messages.length, 0);
}
const best = Math.min(...runs);
console.log(`sessions bench: ${sessions} sessions, ${messages} messages from ${dir}`);
console.log(`  read + convert + validate: best ${best.toFixed(0)} ms of 3 (${((messages / best) * 1000).toFixed(0)} messages/s)`);
