import { afterEach, describe, expect, it } from "vitest";
import type { Message } from "@context-engine/core";
import { LcmEngine } from "../src/index.js";
import { agentConversation, runScript } from "./engine-helpers.js";
import Database from "better-sqlite3";
import { pinNativeObjects } from "../src/store/native-pin.js";
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
    // Pinned: on Node 24 a collected better-sqlite3 object aborts the process (src/store/native-pin.ts).
    const db = pinNativeObjects(new Database(engine.storeInfo.location));
    db.prepare("UPDATE pending_imports SET updated_at = 0").run();
    db.close();
    return;
  }
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(`UPDATE "${String(t.config.schema)}".pending_imports SET updated_at = 0`);
  await client.end();
}

/**
 * `compress` of `agentConversation(turns, seed)` in a process of its own that then ends without closing the
 * engine: killed (SIGKILL, its import left mid-way as after a crash) or by `process.exit()`. Returns the length
 * of the list it answered and what was left of the import when the hook returned.
 */
async function compressThenCrash(t: ReturnType<typeof testStore>, turns: number, seed: number, sessionId: string, exit: "kill" | "exit" = "kill", also: string[] = []): Promise<{ live: number; remaining: number; alsoRemaining: number[] }> {
  const run = JSON.stringify({ dataDir: t.dataDir, config: { ...t.config, ...CONFIG }, turns, seed, sessionId, exit, also });
  const { code, signal, out, err } = await runScript(new URL("./import-crash-worker.ts", import.meta.url), { LCM_CRASH_RUN: run });
  if (exit === "kill") expect(signal, err).toBe("SIGKILL");
  else expect(code, err).toBe(0);
  return JSON.parse(out.trim()) as { live: number; remaining: number; alsoRemaining: number[] };
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

    // Turns arrive while the backlog is stored (no wait between them).
    for (let i = 0; i < 3; i++) {
      live = [...live, ...turn(i)];
      await engine.onTurnComplete(live, null, { sessionId: "imp" });
      expected.push(...turn(i).map(key));
    }
    // A search during the import stores the rest first (it is quick): the oldest turn is found, with no note.
    const during = JSON.parse(await engine.handleToolCall("lcm_grep", { query: "CANARY_3_0" }, { sessionId: "imp" })) as { hits: Array<{ snippet: string }>; notes?: string[] };
    expect(during.hits[0]?.snippet).toContain("CANARY_3_0");
    expect(during.notes?.join(" ") ?? "").not.toMatch(/still being stored/);
    expect(importStatus(engine)).toBeUndefined();
    await engine.whenIdle("imp");
    expect(await storedKeys(engine, "imp")).toEqual(expected);
    const conv = (await engine.store.findConversation("imp"))!;
    expect(conv.messageCount).toBe(expected.length);
    // Summarised once the history was whole: under the threshold again.
    expect(conv.frontierTokens).toBeLessThan(engine.thresholdTokens);
  });

  it("a tool call during the import stores the rest first: a search never misses the oldest messages", async () => {
    const made = makeEngine({ config: CONFIG });
    cleanups.push(made.cleanup);
    const engine = made.engine;
    const history = agentConversation(300, 12);
    await engine.compress(history, { sessionId: "tool" });
    expect(importStatus(engine)!.remaining).toBeGreaterThan(0);
    const found = JSON.parse(await engine.handleToolCall("lcm_grep", { query: "CANARY_12_0" }, { sessionId: "tool" })) as { hits: Array<{ snippet: string }>; notes?: string[] };
    expect(found.hits[0]?.snippet).toContain("CANARY_12_0");
    expect(found.notes?.join(" ") ?? "").not.toMatch(/still being stored/);
    expect(importStatus(engine)).toBeUndefined();
    expect(await storedKeys(engine, "tool")).toEqual(history.slice(1).map(key));
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

  it("a process killed mid-import is finished by the next one given the same list, without loss or duplicates", { timeout: 60_000 }, async () => {
    const t = testStore();
    const open = () => new LcmEngine({ dataDir: t.dataDir, contextLength: 8_000, config: { ...t.config, ...CONFIG } });
    cleanups.push(async () => t.cleanup());
    const history = agentConversation(400, 5);
    // Killed at once: the backlog is left in the store's pending import.
    const first = await compressThenCrash(t, 400, 5, "rs");
    expect(first.remaining).toBeGreaterThan(0);

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
    expect(first.live).toBeGreaterThan(0);
  });

  it("a writer whose list does not show the history leaves a live import alone, and gives up only one nobody moved for the lease", { timeout: 60_000 }, async () => {
    const t = testStore();
    const open = () => new LcmEngine({ dataDir: t.dataDir, contextLength: 8_000, config: { ...t.config, ...CONFIG } });
    cleanups.push(async () => t.cleanup());
    const history = agentConversation(300, 6);
    expect((await compressThenCrash(t, 300, 6, "ab")).remaining).toBeGreaterThan(0);
    const second = open();
    cleanups.push(() => second.close());
    // A list of a host that compacted on its own: the imported history is not in it. The import moved just
    // now (its process may be at work on it): it is left pending, and summaries wait for it.
    const rewritten: Message[] = [history[0]!, { role: "user", content: "Summary of the earlier work, by the host: the gateway was refactored and TICKET-900 was closed." }, ...history.slice(-4), ...turn(2)];
    await second.onTurnComplete(rewritten, null, { sessionId: "ab" });
    expect(importStatus(second)).toMatchObject({ inProgress: true, abandoned: 0 });
    // Nobody moved it for the lease: the next such list gives it up.
    await ageImport(t, second);
    await second.onTurnComplete([...rewritten, ...turn(3)], null, { sessionId: "ab" });
    await second.whenIdle("ab");
    const status = importStatus(second);
    expect(status?.inProgress).toBe(false);
    expect(status!.abandoned).toBeGreaterThan(0);
    const stored = await storedKeys(second, "ab");
    // What is stored holds no message twice. The host's own note sat before the imported tail in its list: while
    // the import was live it was held back (it could have been a backlog message the import stores), and it is
    // stored once the import is given up, with that list's new turn.
    const seen = new Set<string>();
    const twice = stored.filter((k) => (seen.has(k) ? true : (seen.add(k), false)));
    expect(twice).toEqual([]);
    expect(stored.slice(-5)).toEqual([...turn(2).map(key), key(rewritten[1]!), ...turn(3).map(key)]);
  });

  it("a process that exits without closing the engine stores the rest at exit on SQLite; on PostgreSQL the next list finishes it", { timeout: 60_000 }, async () => {
    const t = testStore();
    cleanups.push(async () => t.cleanup());
    const history = agentConversation(400, 11);
    // Two sessions of one engine, each with a backlog left when the process exits.
    const first = await compressThenCrash(t, 400, 11, "ex", "exit", ["ex2"]);
    expect(first.remaining).toBeGreaterThan(0);
    expect(first.alsoRemaining[0]).toBeGreaterThan(0);
    const second = new LcmEngine({ dataDir: t.dataDir, contextLength: 8_000, config: { ...t.config, ...CONFIG } });
    cleanups.push(() => second.close());
    await second.openStore();
    const expected = history.slice(1).map(key);
    if (TEST_STORE === "sqlite") {
      // Stored whole by the exit listener, though no list this process is given shows that history; each session's
      // own (exit-finish.ts runs them apart).
      expect(await storedKeys(second, "ex")).toEqual(expected);
      expect(await storedKeys(second, "ex2")).toEqual(agentConversation(400, 12).slice(1).map(key));
      expect(importStatus(second)).toBeUndefined();
      return;
    }
    // No synchronous driver at exit: left pending, and the host's next full list finishes it.
    expect((await storedKeys(second, "ex")).length).toBeLessThan(expected.length);
    await second.onTurnComplete([...history, ...turn(8)], null, { sessionId: "ex" });
    await second.whenIdle("ex");
    expect(await storedKeys(second, "ex")).toEqual([...expected, ...turn(8).map(key)]);
  });

  it("a second writer whose list does not carry a live import stores none of its backlog twice", { timeout: 60_000 }, async () => {
    const t = testStore();
    const open = () => new LcmEngine({ dataDir: t.dataDir, contextLength: 8_000, config: { ...t.config, ...CONFIG } });
    cleanups.push(async () => t.cleanup());
    const history = agentConversation(300, 13);
    const first = open();
    cleanups.push(() => first.close());
    await first.compress(history, { sessionId: "two" });
    expect(importStatus(first)!.remaining).toBeGreaterThan(0);
    // Another writer's host keeps a window of its list (the history without its oldest 40 messages), so the
    // list does not carry the import where it began; the first writer is still at work on it.
    const second = open();
    cleanups.push(() => second.close());
    const window = [history[0]!, ...history.slice(41)];
    await second.onTurnComplete([...window, ...turn(5)], null, { sessionId: "two" });
    await first.whenIdle("two");
    await second.onTurnComplete([...window, ...turn(5), ...turn(6)], null, { sessionId: "two" });
    await second.whenIdle("two");
    const stored = await storedKeys(second, "two");
    // Every history message once, in order, then the second writer's turns.
    expect(stored).toEqual([...history.slice(1).map(key), ...turn(5).map(key), ...turn(6).map(key)]);
  });

  it("listens for the process's exit only while an import it could finish there is in progress (SQLite)", async () => {
    const made = makeEngine({ config: CONFIG });
    cleanups.push(made.cleanup);
    const engine = made.engine;
    const before = process.listenerCount("exit");
    await engine.compress(agentConversation(300, 14), { sessionId: "ls" });
    expect(importStatus(engine)!.remaining).toBeGreaterThan(0);
    expect(process.listenerCount("exit")).toBe(before + (TEST_STORE === "sqlite" ? 1 : 0));
    await engine.whenIdle("ls");
    expect(process.listenerCount("exit")).toBe(before);
    await engine.compress(agentConversation(300, 15), { sessionId: "ls2" });
    await engine.close();
    expect(process.listenerCount("exit")).toBe(before);
  });

  it("a process stopped on purpose stores the rest first: close() and onSessionEnd give nothing up", { timeout: 60_000 }, async () => {
    const t = testStore();
    const open = () => new LcmEngine({ dataDir: t.dataDir, contextLength: 8_000, config: { ...t.config, ...CONFIG } });
    cleanups.push(async () => t.cleanup());
    const closed = agentConversation(300, 8);
    const ended = agentConversation(260, 9);
    const first = open();
    const live = await first.compress(closed, { sessionId: "closed" });
    expect(importStatus(first)?.remaining).toBeGreaterThan(0);
    await first.close();
    const second = open();
    cleanups.push(() => second.close());
    await second.openStore();
    // Stored whole by close(), though no list this process is given shows that history again.
    expect(await storedKeys(second, "closed")).toEqual(closed.slice(1).map(key));
    const after = await second.compress(ended, { sessionId: "ended" });
    expect(importStatus(second)?.remaining).toBeGreaterThan(0);
    // The host's last list is its compacted one: the backlog is only in the import's source.
    await second.onSessionEnd("ended", [...after, ...turn(4)]);
    const stored = await storedKeys(second, "ended");
    expect(stored.slice(0, ended.length - 1)).toEqual(ended.slice(1).map(key));
    expect(stored.slice(-2)).toEqual(turn(4).map(key));
    expect(live.length).toBeGreaterThan(0);
  });
});
