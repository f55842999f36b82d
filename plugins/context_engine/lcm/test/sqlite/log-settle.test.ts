import Database from "better-sqlite3";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Message } from "@context-engine/core";
import { LcmEngine } from "../../src/index.js";
import { SETTLE_MIN_FRAMES } from "../../src/engine/log-settle.js";
import { SqliteLcmStore } from "../../src/store/sqlite/store.js";
import { walFramesPending } from "../../src/store/sqlite/wal.js";
import { pinNativeObjects } from "../../src/store/native-pin.js";
import { openLcmStore } from "../../src/store/index.js";
import { agentConversation, tempDir } from "../engine-helpers.js";
import { asst, user } from "../helpers.js";

// The write-ahead log settled between hooks (engine/log-settle.ts, store/sqlite/wal.ts `settleWal`), so that a
// hook's own commit need not copy the log into the database.

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function storeAt(): { store: SqliteLcmStore; path: string } {
  const t = tempDir();
  const path = `${t.dir}/lcm.sqlite`;
  const store = openLcmStore({ path }) as SqliteLcmStore;
  cleanups.push(() => t.cleanup(), () => store.close());
  return { store, path };
}

describe("settleLog on the SQLite store", () => {
  it("settles what was written since the last call, and only that", () => {
    const { store } = storeAt();
    const conv = store.conversation("settle");
    expect(store.settleLog()).toBe(false);
    store.ingest(conv.id, [user("a question about the canary"), asst("it passed")], { mode: "append" });
    expect(store.logUnsettled).toBe(true);
    expect(store.settleLog()).toBe(true);
    expect(store.logUnsettled).toBe(false);
    expect(store.settleLog()).toBe(false);
    store.ingest(conv.id, [user("one more")], { mode: "append" });
    expect(store.settleLog()).toBe(true);
  });

  it("reads the pages waiting in the log from the -shm header, and waits for minFrames of them", () => {
    const { store, path } = storeAt();
    const conv = store.conversation("frames");
    store.ingest(conv.id, [user("a short question")], { mode: "append" });
    const few = walFramesPending(path)!;
    expect(few).toBeGreaterThan(0);
    expect(store.settleLog({ minFrames: few + 1 })).toBe(false);
    expect(store.logUnsettled).toBe(true);
    expect(store.settleLog({ minFrames: few })).toBe(true);
    expect(walFramesPending(path)).toBe(0);
    expect(walFramesPending(`${path}.missing`)).toBeNull();
  });

  it("never waits for another process's reader, and settles once it is gone", () => {
    const { store, path } = storeAt();
    const conv = store.conversation("reader");
    store.ingest(conv.id, [user("before the reader")], { mode: "append" });
    expect(store.settleLog()).toBe(true);
    // Pinned like the store's own handles: on Node 24 a collected better-sqlite3 object aborts the process.
    const other = pinNativeObjects(new Database(path, { readonly: true }));
    cleanups.push(() => void other.close());
    // A read transaction of another connection pins the log as it is now.
    other.exec("BEGIN");
    other.prepare("SELECT count(*) FROM messages").get();
    store.ingest(conv.id, [asst("written while the other process reads")], { mode: "append" });
    expect(store.settleLog()).toBe(false);
    other.exec("COMMIT");
    expect(store.settleLog()).toBe(true);
    expect(store.getConversation(conv.id)?.messageCount).toBe(2);
  });
});

describe("the engine settles the log between hooks", () => {
  // How many pages the engine's own turns and background work leave in the log depends on how that work was cut
  // into transactions (slices by time) and where SQLite's checkpoint inside a commit fell: the log is grown here
  // through the store itself, one long message at a time, until it holds at least SETTLE_MIN_FRAMES pages.
  async function engineAt(): Promise<{ engine: LcmEngine; store: SqliteLcmStore; settles: () => number }> {
    const t = tempDir();
    const engine = new LcmEngine({ dataDir: t.dir, contextLength: 16_000 });
    cleanups.push(
      () => t.cleanup(),
      () => engine.close(),
    );
    await engine.openStore();
    const store = engine.store as SqliteLcmStore;
    // The store's own settleLog, counted: the engine calls it through this same object.
    let settled = 0;
    const settle = store.settleLog.bind(store);
    store.settleLog = (options) => {
      const done = settle(options);
      if (done) settled++;
      return done;
    };
    return { engine, store, settles: () => settled };
  }

  /** The engine's first turn (`agentConversation(2, seed)`), with its work done; returns the list. */
  async function firstTurn(engine: LcmEngine, seed: number): Promise<Message[]> {
    const first = agentConversation(2, seed);
    await engine.onTurnComplete(first, null, { sessionId: "s" });
    await engine.whenIdle("s");
    return first;
  }

  /** Writes long messages to another conversation of the store (the engine does not see them) until the log holds enough pages. */
  function growLog(store: SqliteLcmStore): number {
    const conv = store.conversation("bulk");
    for (let i = 0; i < 1_000; i++) {
      const pending = walFramesPending(store.path) ?? 0;
      if (pending >= SETTLE_MIN_FRAMES) return pending;
      store.ingest(conv.id, [user(`bulk ${i}: ${"why did the deploy stall on the canary? ".repeat(300)}`)], { mode: "append" });
    }
    throw new Error("the log never reached SETTLE_MIN_FRAMES pages");
  }

  it("before whenIdle resolves, once the log holds enough pages", async () => {
    const { engine, store, settles } = await engineAt();
    await firstTurn(engine, 1);
    expect(growLog(store)).toBeGreaterThanOrEqual(SETTLE_MIN_FRAMES);
    const before = settles();
    await engine.whenIdle("s");
    expect(settles()).toBe(before + 1);
    expect(walFramesPending(store.path)).toBe(0);
    expect(store.logUnsettled).toBe(false);
  });

  it("leaves a short log alone (a checkpoint per turn would copy the same pages again and again)", async () => {
    const { engine, store, settles } = await engineAt();
    const first = await firstTurn(engine, 2);
    // A log settled by hand: what follows is the short turn's alone.
    store.settleLog();
    expect(walFramesPending(store.path)).toBe(0);
    const before = settles();
    await engine.onTurnComplete([...first, ...agentConversation(1, 3).slice(1)], null, { sessionId: "s" });
    await engine.whenIdle("s");
    const pending = walFramesPending(store.path)!;
    expect(pending).toBeGreaterThan(0);
    expect(pending).toBeLessThan(SETTLE_MIN_FRAMES);
    expect(settles()).toBe(before);
    expect(store.logUnsettled).toBe(true);
  });

  it("on its own once the hooks pause", async () => {
    const { engine, store, settles } = await engineAt();
    const first = await firstTurn(engine, 4);
    growLog(store);
    const before = settles();
    // A hook, and then no host call: the pause alone settles the log (polled, no timing asserted).
    await engine.onTurnComplete([...first, ...agentConversation(1, 5).slice(1)], null, { sessionId: "s" });
    await vi.waitFor(() => expect(settles()).toBeGreaterThan(before), { timeout: 10_000, interval: 20 });
  });
});
