import { sqliteHandle } from "../src/store/sqlite/store.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readSessions, resolveDataDir } from "@context-engine/sessions";
import { openLcmStore } from "../src/store/index.js";
import { ConversationGenerator, rawTextBytes } from "./synthetic.js";

/**
 * Database size against the raw text it holds (target ≤ 2×). Raw text = UTF-8
 * bytes of every message's content plus tool-call names and arguments.
 */
const TOTAL = Number(process.env.LCM_BENCH_SIZE ?? 100_000);
const dir = mkdtempSync(join(tmpdir(), "lcm-bench-size-"));
try {
  const store = openLcmStore({ dataDir: dir });
  let raw = 0;
  let n = 0;
  for (let c = 0; n < TOTAL; c++) {
    const conv = store.conversation(`size-${c}`);
    const msgs = new ConversationGenerator({ seed: 500 + c }).messages(Math.min(5_000, TOTAL - n));
    for (const m of msgs) raw += rawTextBytes(m);
    for (let i = 0; i < msgs.length; i += 1000) store.ingest(conv.id, msgs.slice(i, i + 1000), { mode: "append" });
    n += msgs.length;
  }
  store.compact();
  const file = store.stats().fileBytes;
  let breakdown = "";
  try {
    const rows = sqliteHandle(store)
      .prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC LIMIT 12")
      .all() as Array<{ name: string; bytes: number }>;
    breakdown = rows.map((r) => `    ${r.name.padEnd(32)} ${(r.bytes / 1e6).toFixed(1).padStart(7)} MB  ${((r.bytes / file) * 100).toFixed(0).padStart(3)}%`).join("\n");
  } catch {
    breakdown = "    (dbstat not available in this SQLite build)";
  }
  const ratio = file / raw;
  console.log(`size: ${n.toLocaleString("en-US")} messages, raw text ${(raw / 1e6).toFixed(1)} MB, database ${(file / 1e6).toFixed(1)} MB = ${ratio.toFixed(2)}× raw (${Math.round(file / n)} bytes/message)`);
  console.log(breakdown);
  console.log(`target: ≤ 2× raw text — ${ratio <= 2 ? "PASS" : "FAIL"}`);
  store.close();

  // The same measure on the real recorded agent sessions, when ../shared/data is there.
  const data = resolveDataDir();
  if (!data) console.log("size (real sessions): skipped, shared data not found (set CONTEXT_ENGINE_DATA_DIR)");
  else {
    const real = openLcmStore({ dataDir: join(dir, "real") });
    let rawReal = 0;
    let count = 0;
    for (const src of ["agent-traces/mini-swe-agent-gemini3pro", "agent-traces/swe-agent-function-calling", "agent-traces/swe-gym-openhands/sample_raw.json", "agent-traces/tau-bench/gpt-4o-airline.json"]) {
      for (const session of await readSessions(join(data, src))) {
        const conv = real.conversation(`${session.format}:${session.id}`);
        real.ingest(conv.id, session.messages);
        for (const m of session.messages) rawReal += rawTextBytes(m);
        count += session.messages.length;
      }
    }
    real.compact();
    const bytes = real.stats().fileBytes;
    console.log(
      `size (real sessions): ${count.toLocaleString("en-US")} messages, raw text ${(rawReal / 1e6).toFixed(1)} MB, database ${(bytes / 1e6).toFixed(1)} MB = ${(bytes / rawReal).toFixed(2)}× raw — ${bytes / rawReal <= 2 ? "PASS" : "FAIL"}`,
    );
    real.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
