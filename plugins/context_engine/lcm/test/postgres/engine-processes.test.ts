import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { POSTGRES_URL, postgresReachable, randomSchema } from "./server.js";

const reachable = await postgresReachable();
const SHARED = 2;
const TURNS = 14;

function start(worker: number, schema: string, turns = TURNS) {
  const script = fileURLToPath(new URL("./engine-worker.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", script, POSTGRES_URL, schema, String(worker), String(SHARED), String(turns)], { stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  child.stderr.on("data", (d) => (err += String(d)));
  const done = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, done, err: () => err };
}

async function query<T extends pg.QueryResultRow>(sql: string): Promise<T[]> {
  const c = new pg.Client({ connectionString: POSTGRES_URL });
  await c.connect();
  try {
    return (await c.query<T>(sql)).rows;
  } finally {
    await c.end();
  }
}

describe.skipIf(!reachable)("the engine in 4 processes sharing one PostgreSQL schema", () => {
  const schema = randomSchema();
  afterAll(async () => {
    await query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
  });

  it("stores every message once and in order, never compacts a run twice, and survives a process killed mid-compaction", { timeout: 120_000 }, async () => {
    const workers = [0, 1, 2, 3].map((w) => start(w, schema));
    // A fifth process on the same conversations, killed while the others work (and compact).
    const victim = start(9, schema, 200);
    await new Promise((r) => setTimeout(r, 2_500));
    victim.child.kill("SIGKILL");
    const codes = await Promise.all(workers.map((w) => w.done));
    expect(codes, workers.map((w) => w.err().slice(-1500)).join("\n")).toEqual([0, 0, 0, 0]);

    const conversations = await query<{ id: string; session_id: string }>(`SELECT id, session_id FROM ${schema}.conversations`);
    for (const conv of conversations) {
      const bodies = (await query<{ body: string }>(`SELECT body FROM ${schema}.messages WHERE conversation_id = ${conv.id} ORDER BY seq`)).map((r) => r.body);
      // Every message once, in order: question i, answer i, question i+1… with no gap and no repeat.
      bodies.forEach((b, i) => expect(b.startsWith(`${conv.session_id} ${i % 2 === 0 ? "question" : "answer"} ${Math.floor(i / 2)}:`), `${conv.session_id} #${i}: ${b.slice(0, 40)}`).toBe(true));
      if (conv.session_id.startsWith("shared") || /own-[0-3]$/.test(conv.session_id)) expect(bodies.length).toBe(TURNS * 2);
    }
    // No message under two leaf summaries: no run was compacted twice.
    expect(await query(`SELECT message_id FROM ${schema}.summary_sources GROUP BY message_id HAVING count(*) > 1`)).toEqual([]);
    // Nothing half-published: every message is in the active context exactly once, directly or under one summary.
    for (const conv of conversations) {
      const covered = await query<{ message_id: string; n: string }>(`
        WITH RECURSIVE tree(id) AS (SELECT summary_id FROM ${schema}.frontier WHERE conversation_id = ${conv.id} AND summary_id IS NOT NULL
          UNION ALL SELECT c.child_id FROM ${schema}.summary_children c JOIN tree t ON c.summary_id = t.id)
        SELECT message_id, count(*) AS n FROM (
          SELECT message_id FROM ${schema}.frontier WHERE conversation_id = ${conv.id} AND message_id IS NOT NULL
          UNION ALL SELECT sm.message_id FROM ${schema}.summary_sources sm JOIN ${schema}.summaries s ON s.rid = sm.summary_rid JOIN tree t ON s.id = t.id) x GROUP BY message_id`);
      const total = Number((await query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.messages WHERE conversation_id = ${conv.id}`))[0]!.n);
      expect(covered.length, conv.session_id).toBe(total);
      expect(covered.every((r) => Number(r.n) === 1), conv.session_id).toBe(true);
    }
    const summaries = Number((await query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.summaries`))[0]!.n);
    expect(summaries).toBeGreaterThan(0);
  });
});
