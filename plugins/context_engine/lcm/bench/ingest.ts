import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { openLcmStore } from "../src/store/index.js";
import { ConversationGenerator, rawTextBytes } from "./synthetic.js";

/**
 * Ingest throughput (target ≥ 20,000 messages/s), four ways:
 *  - bulk import with write-behind indexing (`index: "deferred"`), then the index build;
 *  - bulk with immediate indexing: one ingest call per 1,000-message batch;
 *  - per turn: the engine's path — the host's whole transcript handed over after
 *    every turn and aligned against what is stored (only the new turn is written);
 *  - re-ingest: the same transcript again (idempotency check, nothing written).
 */
const TOTAL = Number(process.env.LCM_BENCH_INGEST ?? 100_000);
const dir = mkdtempSync(join(tmpdir(), "lcm-bench-ingest-"));
try {
  const store = openLcmStore({ dataDir: dir });
  const gen = new ConversationGenerator({ seed: 7 });
  const all = gen.messages(TOTAL);
  const bytes = all.reduce((a, m) => a + rawTextBytes(m), 0);

  const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
  // bulk import, indexing deferred
  const conv0 = store.conversation("bulk-deferred");
  let t0 = performance.now();
  for (let i = 0; i < all.length; i += 1000) store.ingest(conv0.id, all.slice(i, i + 1000), { mode: "append", index: "deferred" });
  let ms = performance.now() - t0;
  const deferredRate = all.length / (ms / 1000);
  console.log(
    `ingest bulk, index deferred : ${all.length} msgs (${(bytes / 1e6).toFixed(1)} MB text) in ${ms.toFixed(0)} ms = ${fmt(deferredRate)} msg/s, ${(bytes / 1e6 / (ms / 1000)).toFixed(1)} MB/s`,
  );
  t0 = performance.now();
  store.indexPending();
  ms = performance.now() - t0;
  console.log(`  then the full-text index  : ${fmt(all.length / (ms / 1000))} msg/s (in slices of 2,000 rows; a search flushes first)`);

  // bulk, indexed in the same transaction
  const conv = store.conversation("bulk");
  t0 = performance.now();
  for (let i = 0; i < all.length; i += 1000) store.ingest(conv.id, all.slice(i, i + 1000), { mode: "append", index: "now" });
  ms = performance.now() - t0;
  const bulkRate = all.length / (ms / 1000);
  console.log(`ingest bulk, indexed at once: ${fmt(bulkRate)} msg/s, ${(bytes / 1e6 / (ms / 1000)).toFixed(1)} MB/s`);

  // per turn, transcript aligned each time
  const turnGen = new ConversationGenerator({ seed: 11 });
  const conv2 = store.conversation("turns");
  const transcript = [{ role: "system", content: "You are a coding agent." } as const] as Parameters<typeof store.ingest>[1][number][];
  let turnMsgs = 0;
  let turnMs = 0;
  const target = Math.min(20_000, TOTAL);
  while (turnMsgs < target) {
    const turn = turnGen.turn();
    transcript.push(...turn);
    t0 = performance.now();
    const r = store.ingest(conv2.id, transcript);
    turnMs += performance.now() - t0;
    turnMsgs += r.appended;
  }
  console.log(
    `ingest per turn             : ${turnMsgs} msgs over a transcript growing to ${transcript.length} in ${turnMs.toFixed(0)} ms = ${Math.round(turnMsgs / (turnMs / 1000)).toLocaleString("en-US")} msg/s`,
  );

  // idempotent re-ingest
  t0 = performance.now();
  const again = store.ingest(conv2.id, transcript);
  ms = performance.now() - t0;
  console.log(`re-ingest                   : ${transcript.length} msgs, appended ${again.appended}, ${ms.toFixed(1)} ms (alignment ${again.alignment})`);
  console.log(
    `target: ≥ 20,000 msg/s — bulk import ${deferredRate >= 20_000 ? "PASS" : "FAIL"}, with indexing at once ${bulkRate >= 20_000 ? "PASS" : "FAIL"} (os load ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores)`,
  );
  store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
