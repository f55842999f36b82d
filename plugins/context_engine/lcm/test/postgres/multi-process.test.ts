import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { migratePostgres } from "../../src/store/postgres/migrations.js";
import { PostgresLcmStore } from "../../src/store/postgres/store.js";
import { POSTGRES_URL, postgresReachable, testSchema } from "./server.js";

const reachable = await postgresReachable();
const WORKERS = 4;
const SESSIONS = 4;
const TURNS = 12;

function run(worker: number, schema: string): Promise<void> {
  const script = fileURLToPath(new URL("./worker.ts", import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", script, POSTGRES_URL, schema, String(worker), String(SESSIONS), String(TURNS)], {
      stdio: ["ignore", "inherit", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (d) => (err += String(d)));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`worker ${worker} exited with ${code}: ${err.slice(-2000)}`));
    });
  });
}

describe.skipIf(!reachable)("PostgreSQL store shared by 4 processes", () => {
  let drop: (() => Promise<void>) | null = null;
  afterAll(async () => {
    await drop?.();
  });

  it("stores every message exactly once, loses no write, and never runs two compactions of a conversation at once", { timeout: 90_000 }, async () => {
    const t = await testSchema(2);
    drop = t.drop;
    const conn = await t.open();
    await migratePostgres(conn);
    await conn.pool.query("CREATE TABLE test_compactions (conversation_id bigint, worker int, started timestamptz, ended timestamptz)");
    await Promise.all(Array.from({ length: WORKERS }, (_, w) => run(w, t.schema)));

    const store = await PostgresLcmStore.open({ url: POSTGRES_URL, schema: t.schema, poolSize: 2 });
    try {
      for (let s = 0; s < SESSIONS; s++) {
        const conv = (await store.findConversation(`session-${s}`))!;
        const stored = await store.getMessages(conv.id);
        // the full transcript once, in order, whatever the interleaving of the four writers
        expect(stored.map((m) => m.message.content)).toEqual([
          `session ${s}`,
          ...Array.from({ length: TURNS }, (_, i) => [`s${s} question ${i}`, `s${s} answer ${i}`]).flat(),
        ]);
        expect(stored.map((m) => m.seq)).toEqual(stored.map((_, i) => i));
        expect((await store.getFrontier(conv.id)).items).toHaveLength(stored.length);
      }
      const log = await store.getMessages((await store.findConversation("log"))!.id);
      expect(log).toHaveLength(WORKERS * TURNS);
      expect(new Set(log.map((m) => m.message.content)).size).toBe(WORKERS * TURNS);
      const overlaps = await conn.pool.query(
        `SELECT count(*)::int AS n FROM test_compactions a JOIN test_compactions b
         ON a.conversation_id = b.conversation_id AND a.ctid < b.ctid AND a.started < b.ended AND b.started < a.ended`,
      );
      expect(overlaps.rows[0].n).toBe(0);
      expect((await conn.pool.query("SELECT count(*)::int AS n FROM test_compactions")).rows[0].n).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });
});
