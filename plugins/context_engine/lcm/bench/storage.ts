import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "@context-engine/core";
import { openLcmStore } from "../src/store/index.js";
import { openPostgresStore } from "../src/store/open.js";
import { sqliteHandle } from "../src/store/sqlite/store.js";
import { ConversationGenerator, rawTextBytes } from "./synthetic.js";

/**
 * Where a store's bytes go: one conversation of LCM_BENCH_STORAGE_MESSAGES
 * (default 10,000) seeded agent messages ingested turn by turn, then every
 * table and index of the SQLite file (`dbstat`) and of a PostgreSQL schema
 * (`pg_relation_size`, TOAST apart), each against the raw text.
 *   LCM_BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/test; "none" skips PostgreSQL)
 */
const TOTAL = Number(process.env.LCM_BENCH_STORAGE_MESSAGES ?? 10_000);
const PG_URL = process.env.LCM_BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const gen = new ConversationGenerator({ seed: 11, maxToolLines: 30 });
const turns: Message[][] = [];
let raw = 0;
for (let n = 0; n < TOTAL; ) {
  const t = gen.turn();
  turns.push(t);
  n += t.length;
  for (const m of t) raw += rawTextBytes(m);
}
const kib = (b: number) => `${(b / 1024).toFixed(0).padStart(8)} KiB`;
const line = (name: string, bytes: number, note = "") => console.log(`  ${name.padEnd(36)} ${kib(bytes)}  ${(bytes / raw).toFixed(3).padStart(6)}× raw${note}`);
console.log(`one conversation of ${turns.reduce((a, t) => a + t.length, 0).toLocaleString("en-US")} messages, raw text ${(raw / 2 ** 20).toFixed(1)} MiB`);

async function sqlite(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "lcm-storage-"));
  try {
    const store = openLcmStore({ path: join(dir, "lcm.sqlite") });
    const conv = store.conversation("storage");
    for (const t of turns) store.ingest(conv.id, t, { mode: "append" });
    const db = sqliteHandle(store);
    db.pragma("wal_checkpoint(TRUNCATE)");
    const rows = db.prepare("SELECT name, sum(pgsize) AS bytes, sum(unused) AS unused FROM dbstat GROUP BY name ORDER BY bytes DESC").all() as Array<{ name: string; bytes: number; unused: number }>;
    const total = rows.reduce((a, r) => a + r.bytes, 0);
    console.log(`SQLite: ${(total / 2 ** 20).toFixed(1)} MiB = ${(total / raw).toFixed(2)}× raw (file without -wal)`);
    for (const r of rows.filter((x) => x.bytes / total >= 0.005)) line(r.name, r.bytes, `  (${((r.unused / r.bytes) * 100).toFixed(0)}% of it unused)`);
    store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function postgres(): Promise<void> {
  const schema = `lcm_storage_${process.pid}`;
  const store = await openPostgresStore({ url: PG_URL, schema });
  try {
    const conv = await store.conversation("storage");
    for (const t of turns) await store.ingest(conv.id, t, { mode: "append" });
    const pg = (await import("pg")).default;
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      await client.query(`VACUUM ANALYZE ${schema}.messages`);
      const { rows } = await client.query<{ name: string; kind: string; bytes: string; toast: string }>(
        `SELECT c.relname AS name, c.relkind AS kind, pg_relation_size(c.oid) AS bytes,
                CASE WHEN c.reltoastrelid <> 0 THEN pg_total_relation_size(c.reltoastrelid) ELSE 0 END AS toast
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = $1 AND c.relkind IN ('r', 'i') ORDER BY 3 DESC`,
        [schema],
      );
      const total = rows.reduce((a, r) => a + Number(r.bytes) + Number(r.toast), 0);
      console.log(`PostgreSQL: ${(total / 2 ** 20).toFixed(1)} MiB = ${(total / raw).toFixed(2)}× raw (tables, TOAST and indexes)`);
      for (const r of rows.filter((x) => (Number(x.bytes) + Number(x.toast)) / total >= 0.005)) {
        line(`${r.name} (${r.kind === "i" ? "index" : "table"})`, Number(r.bytes));
        if (Number(r.toast) > 0) line(`${r.name} TOAST`, Number(r.toast));
      }
      const cols = await client.query<Record<string, string>>(
        `SELECT sum(pg_column_size(message)) AS message, sum(pg_column_size(body)) AS body, sum(pg_column_size(search)) AS search, sum(pg_column_size(hash)) AS hash FROM ${schema}.messages`,
      );
      console.log("  columns of messages:");
      for (const [k, v] of Object.entries(cols.rows[0]!)) line(`  ${k}`, Number(v));
    } finally {
      await client.query(`DROP SCHEMA ${schema} CASCADE`);
      await client.end();
    }
  } finally {
    await store.close();
  }
}

await sqlite();
if (PG_URL !== "none") await postgres();
