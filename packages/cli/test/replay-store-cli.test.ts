import { writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import type { ReplayReport } from "../src/replay/report.js";
import { runBin, sandbox, type BinResult } from "./helpers/run-bin.js";

/**
 * Replays into a store that persists (LCM on one PostgreSQL schema, from config.yaml): each replay
 * makes a conversation of its own and says which, so replays at once and one after another never
 * write into each other's; --conversation continues one.
 */
const URL_ = "postgres://postgres@127.0.0.1:5432/test";
const reachable = await new Promise<boolean>((done) => {
  const socket = connect(5432, "127.0.0.1");
  socket.once("connect", () => (socket.destroy(), done(true)));
  socket.once("error", () => done(false));
});
if (!reachable) console.warn("[cli] replay-into-PostgreSQL tests SKIPPED: nothing listens on 127.0.0.1:5432");

const schema = `cli_replay_${process.pid}_${Date.now().toString(36)}`;

async function query<T extends Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: URL_ });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

afterAll(async () => {
  if (reachable) await query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
});

/** Per stored conversation: its messages, and a fingerprint of their order and content. */
async function storedConversations(): Promise<Map<string, { messages: number; distinctSeqs: number; fingerprint: string }>> {
  const rows = await query<{ session_id: string; messages: string; seqs: string; fingerprint: string | null }>(
    `SELECT c.session_id, count(m.id) AS messages, count(DISTINCT m.seq) AS seqs, md5(string_agg(m.role || ':' || m.hash, ',' ORDER BY m.seq)) AS fingerprint
       FROM ${schema}.conversations c LEFT JOIN ${schema}.messages m ON m.conversation_id = c.id GROUP BY c.session_id`,
  );
  return new Map(rows.map((r) => [r.session_id, { messages: Number(r.messages), distinctSeqs: Number(r.seqs), fingerprint: r.fingerprint ?? "" }]));
}

function replayed(out: BinResult): { id: string; checked: number } {
  expect(out.code, out.stderr).toBe(0);
  const report = JSON.parse(out.stdout) as ReplayReport;
  const run = report.sessions[0]!.runs[0]!;
  expect(run.errors).toEqual([]);
  expect(run.recoverability!.recovered).toBe(run.recoverability!.checked);
  expect(run.conversation?.store).toContain(`schema ${schema}`);
  const id = run.conversation!.id;
  expect(out.stderr).toContain(`lcm stored this run as conversation ${id} in postgres://postgres@127.0.0.1:5432/test, schema ${schema}`);
  return { id, checked: run.recoverability!.checked };
}

describe.skipIf(!reachable)("replay into a store that persists: a conversation per run (built binary, PostgreSQL)", () => {
  const s = sandbox();
  writeFileSync(join(s.cwd, "config.yaml"), `engines:\n  lcm:\n    store: ${URL_}\n    schema: ${schema}\n`);
  const replay = (...extra: string[]) => runBin(["replay", "--demo", "-e", "lcm", "--no-report", "--no-progress", "--json", ...extra], { ...s, timeoutMs: 400_000 });
  let ids: string[] = [];

  it("four at once and two in a row: every replay exits 0, loses nothing, and stores the recording once in its own conversation", async () => {
    const atOnce = await Promise.all([replay(), replay(), replay(), replay()]);
    const inARow = [await replay(), await replay()];
    const runs = [...atOnce, ...inARow].map(replayed);
    ids = runs.map((r) => r.id);
    expect(new Set(ids).size).toBe(6);
    const stored = await storedConversations();
    expect([...stored.keys()].sort()).toEqual([...ids].sort());
    const first = stored.get(ids[0]!)!;
    // The recording's messages, once each: the run put `checked` messages into the conversation (its system prompt is not stored).
    expect(first.messages).toBeGreaterThanOrEqual(runs[0]!.checked - 1);
    expect(first.messages).toBeLessThanOrEqual(runs[0]!.checked);
    for (const id of ids) {
      const c = stored.get(id)!;
      expect(c.messages, id).toBe(first.messages);
      expect(c.distinctSeqs, id).toBe(c.messages);
      expect(c.fingerprint, id).toBe(first.fingerprint);
    }
  }, 900_000);

  it("--conversation continues one conversation and says so; no new conversation is made", async () => {
    expect(ids.length).toBe(6);
    const before = await storedConversations();
    const out = await replay("--conversation", ids[0]!);
    const { id } = replayed(out);
    expect(id).toBe(ids[0]);
    expect(out.stderr).not.toContain("continue it with --conversation");
    const after = await storedConversations();
    expect(after.size).toBe(before.size);
    expect(after.get(id)!.messages).toBeGreaterThan(before.get(id)!.messages);
    const usage = await runBin(["replay", "--demo", "--conversation", " "], s);
    expect(usage.code).toBe(2);
  }, 300_000);
});
