import { openLcmStore } from "../../../plugins/context_engine/lcm/src/store/index.ts";
import { sqliteHandle } from "../../../plugins/context_engine/lcm/src/store/sqlite/store.ts";
import { ConversationGenerator } from "./generate.ts";
const path = process.argv[2]!;
const n = Number(process.argv[3] ?? 10000);
const store = openLcmStore({ path });
const conv = store.conversation("s");
const gen = new ConversationGenerator();
while (gen.emitted < n) {
  const turn = gen.turn();
  store.ingest(conv.id, turn, { mode: "append" });
}
store.indexPending();
const db = sqliteHandle(store);
db.pragma("wal_checkpoint(TRUNCATE)");
const rows = db.prepare("SELECT name, sum(pgsize) AS bytes, sum(payload) AS payload, sum(unused) AS unused, count(*) AS pages FROM dbstat GROUP BY name ORDER BY bytes DESC").all() as any[];
const total = rows.reduce((a, r) => a + r.bytes, 0);
console.log("raw", gen.rawBytes, "db", total, (total / gen.rawBytes).toFixed(2));
for (const r of rows) console.log(r.name.padEnd(34), (r.bytes / 1024).toFixed(0).padStart(8), "KiB", (r.bytes / gen.rawBytes).toFixed(3), "payload", (r.payload / 1024).toFixed(0), "unused", (r.unused / 1024).toFixed(0));
const cols = db.prepare("SELECT sum(length(text)) t, sum(length(hash)) h, sum(length(extra)) e, sum(length(name)) nm, sum(length(tool_call_id)) tc, count(*) c FROM messages").get();
console.log(cols);
console.log(db.prepare("SELECT sum(length(body)) b, sum(length(extra)) e, sum(length(name)) n, sum(length(call_id)) c, count(*) k FROM message_parts").get());
console.log(db.prepare("SELECT extra FROM messages WHERE extra IS NOT NULL LIMIT 3").all(), db.prepare("SELECT * FROM message_parts LIMIT 2").all());
store.close();
