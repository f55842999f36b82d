// One host process of the multi-process test: ingests shared transcripts, appends its own log lines and
// takes the compaction lock of each conversation now and then. Run by multi-process.test.ts.
import type { Message } from "@context-engine/core";
import { connectPostgres } from "../../src/store/postgres/connect.js";
import { withConversationLock } from "../../src/store/postgres/locks.js";
import { PostgresLcmStore } from "../../src/store/postgres/store.js";

const [url, schema, workerArg, sessionsArg, turnsArg] = process.argv.slice(2);
const worker = Number(workerArg);
const sessions = Number(sessionsArg);
const turns = Number(turnsArg);

/** The transcript every process sees for session `s` after `t` turns (deterministic). */
function transcript(s: number, t: number): Message[] {
  const out: Message[] = [{ role: "system", content: `session ${s}` }];
  for (let i = 0; i < t; i++) out.push({ role: "user", content: `s${s} question ${i}` }, { role: "assistant", content: `s${s} answer ${i}` });
  return out;
}

const store = await PostgresLcmStore.open({ url: url!, schema: schema!, poolSize: 3 });
const conn = await connectPostgres({ url: url!, schema: schema!, poolSize: 2 });
const log = await store.conversation("log");
for (let t = 1; t <= turns; t++) {
  for (let k = 0; k < sessions; k++) {
    const s = (k + worker) % sessions; // each process walks the sessions in its own order
    const conv = await store.conversation(`session-${s}`);
    await store.ingest(conv.id, transcript(s, t));
    if ((t + worker) % 3 === 0) {
      await withConversationLock(conn, conv.id, async () => {
        const started = await conn.pool.query("SELECT clock_timestamp() AS t");
        await new Promise((r) => setTimeout(r, 15));
        await conn.pool.query("INSERT INTO test_compactions (conversation_id, worker, started, ended) VALUES ($1, $2, $3, clock_timestamp())", [conv.id, worker, started.rows[0].t]);
      });
    }
  }
  await store.ingest(log.id, [{ role: "user", content: `worker ${worker} line ${t}` }], { mode: "append" });
}
await conn.close();
await store.close();
