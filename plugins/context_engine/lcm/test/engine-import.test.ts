import { afterEach, describe, expect, it } from "vitest";
import type { Message } from "@context-engine/core";
import { LcmEngine } from "../src/index.js";
import { agentConversation } from "./engine-helpers.js";
import Database from "better-sqlite3";
import pg from "pg";
import { makeEngine, TEST_STORE, testStore } from "./engine-setup.js";
import { POSTGRES_URL } from "./postgres/server.js";

// A long history handed over at once is stored in two parts: the tail the answer needs during the hook, the
// older backlog in the background (engine/import-drain.ts). Whatever comes meanwhile (turns, a rewritten
// list, a restart), every message ends up stored once, in the list's order. Runs on SQLite and PostgreSQL.

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const CONFIG = { import_in_background_above: 100, fresh_tail_count: 4 };

/** What identifies a message here: its role, text and tool-call id. */
function key(m: Message): string {
  const r = m as { role: string; content?: unknown; tool_call_id?: string; tool_calls?: Array<{ id: string }> };
  return JSON.stringify([r.role, typeof r.content === "string" ? r.content : null, r.tool_call_id ?? null, r.tool_calls?.map((c) => c.id) ?? null]);
}

async function storedKeys(engine: LcmEngine, sessionId: string): Promise<string[]> {
  const conv = (await engine.store.findConversation(sessionId))!;
  const rows = await engine.store.getMessages(conv.id);
  const seqs = rows.map((r) => r.seq);
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  return rows.map((r) => key(r.message));
}

function importStatus(engine: LcmEngine): { inProgress: boolean; remaining: number; abandoned: number } | undefined {
  return (engine.getStatus() as unknown as { lcm: { session?: { import?: { inProgress: boolean; remaining: number; abandoned: number } } } }).lcm.session?.import;
}

/** Make the store's pending import look abandoned by its process (no progress for longer than IMPORT_LEASE_MS). */
async function ageImport(t: ReturnType<typeof testStore>, engine: LcmEngine): Promise<void> {
  if (TEST_STORE === "sqlite") {
    const db = new Database(engine.storeInfo.location);
    db.prepare("UPDATE pending_imports SET updated_at = 0").run();
    db.close();
    return;
  }
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(`UPDATE "${String(t.config.schema)}".pending_imports SET updated_at = 0`);
  await client.end();
}

/** Whether `stored` is a prefix of `all` followed by a suffix of it. */
function isOldestThenNewest(stored: readonly string[], all: readonly string[]): boolean {
  let j = 0;
  while (j < stored.length && stored[j] === all[j]) j++;
  for (let k = j; k >= 0; k--) {
    const tail = stored.slice(k);
    if (stored.slice(0, k).every((x, i) => x === all[i]) && tail.every((x, i) => x === all[all.length - tail.length + i])) return true;
  }
  return false;
}

const turn = (i: number): Message[] => [
  { role: "user", content: `Follow-up ${i}: what about TICKET-${i}?` },
  { role: "assistant", content: `TICKET-${i} is closed (answer ${i}).` },
];

describe("a long history imported in the background", () => {
  it("stores the tail at once and the backlog after it; turns that come meanwhile follow it, each message once and in order", async () => {
    const made = makeEngine({ config: CONFIG });
    cleanups.push(made.cleanup);
    const engine = made.engine;
    const history = agentConversation(400, 3);
    const expected = history.slice(1).map(key);

    let live = await engine.compress(history, { sessionId: "imp" });
    const status = importStatus(engine);
    expect(status?.inProgress).toBe(true);
    expect(status!.remaining).toBeGreaterThan(0);
    // The hook stored only the tail: fewer rows than the history. What is stored is always the oldest messages
    // (the slices that ran since) followed by the newest (the tail), in order.
    const early = await storedKeys(engine, "imp");
    expect(early.length).toBeLessThan(expected.length);
    expect(isOldestThenNewest(early, expected)).toBe(true);
    // A search meanwhile says that the oldest messages are not searchable yet.
    const during = JSON.parse(await engine.handleToolCall("lcm_grep", { query: "CANARY_3_0" }, { sessionId: "imp" })) as { notes?: string[] };
    expect(during.notes?.join(" ")).toMatch(/still being stored/);

    // Turns arrive while the backlog is stored (no wait between them).
    for (let i = 0; i < 3; i++) {
      live = [...live, ...turn(i)];
      await engine.onTurnComplete(live, null, { sessionId: "imp" });
      expected.push(...turn(i).map(key));
    }
    await engine.whenIdle("imp");
    expect(await storedKeys(engine, "imp")).toEqual(expected);
    expect(importStatus(engine)).toBeUndefined();
    // Once stored, the oldest turn is found, with no note.
    const after = JSON.parse(await engine.handleToolCall("lcm_grep", { query: "CANARY_3_0" }, { sessionId: "imp" })) as { hits: Array<{ snippet: string }>; notes?: string[] };
    expect(after.hits[0]?.snippet).toContain("CANARY_3_0");
    expect(after.notes?.join(" ") ?? "").not.toMatch(/still being stored/);
    const conv = (await engine.store.findConversation("imp"))!;
    expect(conv.messageCount).toBe(expected.length);
    // Summarised once the history was whole: under the threshold again.
    expect(conv.frontierTokens).toBeLessThan(engine.thresholdTokens);
  });

  it("a list the host rewrote during the import finishes it first, then is compared with the whole history", async () => {
    const made = makeEngine({ config: CONFIG });
    cleanups.push(made.cleanup);
    const engine = made.engine;
    const history = agentConversation(300, 4);
    await engine.compress(history, { sessionId: "rw" });
    expect(importStatus(engine)?.inProgress).toBe(true);
    // The host's own compaction: its prompt, a note of its own and the last few messages, then a new turn.
    const rewritten: Message[] = [history[0]!, { role: "user", content: "Summary of earlier work, by the host." }, ...history.slice(-6), ...turn(1)];
    await engine.onTurnComplete(rewritten, null, { sessionId: "rw" });
    await engine.whenIdle("rw");
    const stored = await storedKeys(engine, "rw");
    const all = history.slice(1).map(key);
    // Every history message once, in order, before what the rewritten list added.
    expect(stored.slice(0, all.length)).toEqual(all);
    expect(stored.slice(all.length)).toEqual([key(rewritten[1]!), ...turn(1).map(key)]);
    expect(importStatus(engine)).toBeUndefined();
  });

  it("a process that stops mid-import is finished by the next one given the same list, without loss or duplicates", async () => {
    const t = testStore();
    const open = () => new LcmEngine({ dataDir: t.dataDir, contextLength: 8_000, config: { ...t.config, ...CONFIG } });
    const first = open();
    cleanups.push(async () => t.cleanup());
    const history = agentConversation(400, 5);
    const live = await first.compress(history, { sessionId: "rs" });
    // Stopped at once: the backlog is left in the store's pending import.
    await first.close();

    const second = open();
    cleanups.push(() => second.close());
    await second.openStore();
    const partial = await storedKeys(second, "rs");
    const expected = history.slice(1).map(key);
    expect(partial.length).toBeLessThan(expected.length);
    // The host's next send, on its full list (it still holds the history): the new process finishes the import
    // from it (here inside the hook: the list is compared with the whole history, as after any restart).
    const next = [...history, ...turn(7)];
    await second.onTurnComplete(next, null, { sessionId: "rs" });
    await second.whenIdle("rs");
    expect(await storedKeys(second, "rs")).toEqual([...expected, ...turn(7).map(key)]);
    expect(live.length).toBeGreaterThan(0);
  });

  it("a writer whose list does not show the history leaves a live import alone, and gives up only one nobody moved for the lease", async () => {
    const t = testStore();
    const open = () => new LcmEngine({ dataDir: t.dataDir, contextLength: 8_000, config: { ...t.config, ...CONFIG } });
    const first = open();
    cleanups.push(async () => t.cleanup());
    const history = agentConversation(300, 6);
    await first.compress(history, { sessionId: "ab" });
    const storeInfo = first.storeInfo;
    await first.close();
    const second = open();
    cleanups.push(() => second.close());
    // A list of a host that compacted on its own: the imported history is not in it. The import moved just
    // now (its process may be at work on it): it is left pending, and summaries wait for it.
    const rewritten: Message[] = [history[0]!, { role: "user", content: "Summary of the earlier work, by the host: the gateway was refactored and TICKET-900 was closed." }, ...history.slice(-4), ...turn(2)];
    await second.onTurnComplete(rewritten, null, { sessionId: "ab" });
    expect(importStatus(second)).toMatchObject({ inProgress: true, abandoned: 0 });
    // Nobody moved it for the lease: the next such list gives it up.
    await ageImport(t, first);
    expect(second.storeInfo).toEqual(storeInfo);
    await second.onTurnComplete([...rewritten, ...turn(3)], null, { sessionId: "ab" });
    await second.whenIdle("ab");
    const status = importStatus(second);
    expect(status?.inProgress).toBe(false);
    expect(status!.abandoned).toBeGreaterThan(0);
    const stored = await storedKeys(second, "ab");
    // What is stored is in order and holds no message twice.
    const seen = new Set<string>();
    const twice = stored.filter((k) => (seen.has(k) ? true : (seen.add(k), false)));
    expect(twice).toEqual([]);
    expect(stored.slice(-5)).toEqual([key(rewritten[1]!), ...turn(2).map(key), ...turn(3).map(key)]);
  });
});
