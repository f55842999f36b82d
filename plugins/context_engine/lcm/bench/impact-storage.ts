import { mkdirSync, rmSync } from "node:fs";
import { openLcmStore } from "../src/store/index.js";
import { sqliteHandle } from "../src/store/sqlite/store.js";
import { catchUpImpacts, IMPACT } from "../src/store/sqlite/impact-index.js";
import { ConversationGenerator } from "./synthetic.js";

/**
 * What impact lists cost on a synthetic agent conversation (bench/synthetic.ts, seed 3): the catch-up's
 * wall and CPU time and the lists' share of the database. Lists are built whatever the conversation's size here.
 *   npx tsx --conditions=@context-engine/source bench/impact-storage.ts [messages, default 100000]
 */
IMPACT.minMessages = 1;
const N = Number(process.argv[2] ?? 100000);
const path = `${process.env.LCM_BENCH_DIR ?? "/tmp/lcm-bench"}/impact-storage-${N}.sqlite`;
mkdirSync(process.env.LCM_BENCH_DIR ?? "/tmp/lcm-bench", { recursive: true });
for (const s of ["", "-wal", "-shm"]) rmSync(path + s, { force: true });
const store = openLcmStore({ path, redaction: false });
const conv = store.conversation("s");
const gen = new ConversationGenerator({ seed: 3 });
let n = 0;
while (n < N) {
  const msgs = gen.messages(1000);
  store.ingest(conv.id, msgs, { mode: "append", appendToFrontier: false, index: "deferred" });
  store.indexPending();
  n += msgs.length;
}
const db = sqliteHandle(store);
const c = process.cpuUsage(); const t = performance.now();
while (!catchUpImpacts(db, 60_000));
const u = process.cpuUsage(c);
console.log(`messages ${n}; catch-up ${(performance.now() - t).toFixed(0)} ms wall, ${((u.user + u.system) / 1000).toFixed(0)} ms CPU`);
const rows = db.prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC").all() as Array<{ name: string; bytes: number }>;
const total = rows.reduce((a, r) => a + r.bytes, 0);
const impact = rows.filter((r) => r.name.startsWith("impact") || r.name.includes("autoindex_impact")).reduce((a, r) => a + r.bytes, 0);
console.log(`database ${(total / 1e6).toFixed(1)} MB, impact tables ${(impact / 1e6).toFixed(1)} MB (${((100 * impact) / total).toFixed(1)} %)`);
console.log(db.prepare("SELECT count(*) AS postings, (SELECT count(*) FROM impact_terms) AS terms, (SELECT count(*) FROM impact_terms WHERE kept = df) AS whole FROM impact_postings").get());
store.close();
