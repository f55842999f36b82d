import Database from "better-sqlite3";
import { afterEach, describe, expect, it, vi } from "vitest";
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
  function engineAt(): LcmEngine {
    const t = tempDir();
    const engine = new LcmEngine({ dataDir: t.dir, contextLength: 16_000 });
    cleanups.push(
      () => t.cleanup(),
      () => engine.close(),
    );
    return engine;
  }

  /** A turn of `n` long messages: enough pages for the log to be worth settling. */
  const bulky = (n: number, tag: string) =>
    Array.from({ length: n }, (_, i) => (i % 2 ? asst(`${tag} answer ${i}: ${"the canary passed again. ".repeat(800)}`) : user(`${tag} question ${i}: ${"why did the deploy stall? ".repeat(800)}`)));

  it("before whenIdle resolves, once the log holds enough pages", async () => {
    const engine = engineAt();
    await engine.onTurnComplete(bulky(60, "a"), null, { sessionId: "s" });
    const store = engine.store as SqliteLcmStore;
    await engine.whenIdle("s");
    // Nothing left to settle: the engine did it.
    expect(store.logUnsettled).toBe(false);
    expect(walFramesPending(store.path)).toBe(0);
  });

  it("leaves a short log alone (a checkpoint per turn would copy the same pages again and again)", async () => {
    const engine = engineAt();
    // The first turn (with the store's creation) is long enough to be settled; the short one after it is not.
    const first = bulky(60, "c");
    await engine.onTurnComplete(first, null, { sessionId: "s" });
    await engine.whenIdle("s");
    const store = engine.store as SqliteLcmStore;
    expect(store.logUnsettled).toBe(false);
    await engine.onTurnComplete([...first, ...agentConversation(1, 1).slice(1)], null, { sessionId: "s" });
    await engine.whenIdle("s");
    expect(walFramesPending(store.path)).toBeLessThan(SETTLE_MIN_FRAMES);
    expect(store.logUnsettled).toBe(true);
  });

  it("on its own once the hooks pause", async () => {
    const engine = engineAt();
    await engine.onTurnComplete(bulky(60, "b"), null, { sessionId: "s" });
    const store = engine.store as SqliteLcmStore;
    // No host call after the hook: the pause alone settles it (polled, no timing asserted).
    await vi.waitFor(() => expect(store.logUnsettled).toBe(false), { timeout: 10_000, interval: 20 });
  });
});
