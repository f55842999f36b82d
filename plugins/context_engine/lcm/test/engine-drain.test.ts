import { afterEach, describe, expect, it, vi } from "vitest";
import { checkConversation } from "@context-engine/core";
import type { EngineInitContext, Message } from "@context-engine/core";
import { LcmEngine } from "../src/index.js";
import { agentConversation, FakeSummarizer } from "./engine-helpers.js";
import { testStore } from "./engine-setup.js";

// The scheduled drain: a history handed over at once leaves the stored frontier far over the threshold while
// the host's own list stays small, so the host never asks for a compress. The backlog is summarised and
// published in the background anyway, survives a restart, and never holds up a compress.

const WINDOW = 128_000;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

interface Counters {
  published: number;
  stalePrepared: number;
  drains: number;
  drainRuns: number;
}

function counters(engine: LcmEngine): Counters {
  return (engine.getStatus() as unknown as { lcm: Counters }).lcm;
}

/** One store (of the tested kind) that engines can be opened on again, as after a restart. */
function sharedStore(): { open: (ctx?: EngineInitContext) => LcmEngine } {
  const t = testStore();
  const engines: LcmEngine[] = [];
  cleanups.push(async () => {
    for (const e of engines) await e.close();
    await t.cleanup();
  });
  return {
    open: (ctx = {}) => {
      // The whole history stored by the first turn (no background import): these tests are about the drain.
      const engine = new LcmEngine({ dataDir: t.dataDir, contextLength: WINDOW, ...ctx, config: { ...t.config, import_in_background_above: 0, ...ctx.config } });
      engines.push(engine);
      return engine;
    },
  };
}

/** At least `count` messages of a seeded agent conversation, whole turns. */
function history(count: number, seed: number): Message[] {
  let turns = Math.ceil(count / 5);
  for (;;) {
    const msgs = agentConversation(turns, seed);
    if (msgs.length >= count) return msgs;
    turns += Math.ceil((count - msgs.length) / 4);
  }
}

/** The host's first turn with an imported history: its compress, then the turn's reply and onTurnComplete. */
async function firstTurn(engine: LcmEngine, sessionId: string, imported: Message[]): Promise<Message[]> {
  await engine.onSessionStart(sessionId);
  const compacted = await engine.compress(imported, { sessionId });
  expect(checkConversation(compacted)).toEqual([]);
  const live: Message[] = [...compacted, { role: "user", content: "let us continue" }, { role: "assistant", content: "continuing" }];
  await engine.onTurnComplete(live, null, { sessionId });
  return live;
}

async function frontierTokens(engine: LcmEngine, sessionId: string): Promise<number> {
  const conv = (await engine.store.findConversation(sessionId))!;
  return (await engine.store.getConversation(conv.id))!.frontierTokens;
}

describe("the scheduled drain of a long history", () => {
  it("summarises an imported 10k backlog below the threshold with no host call after the first turn", async () => {
    const model = new FakeSummarizer();
    const engine = sharedStore().open({ chatModel: model });
    const imported = history(10_000, 41);
    const live = await firstTurn(engine, "imp", imported);
    // The first compress ran its bounded passes only: the stored frontier is still several times the threshold.
    const threshold = engine.thresholdTokens;
    expect(await frontierTokens(engine, "imp")).toBeGreaterThan(2 * threshold);
    const callsAfterTurn = model.calls;

    // No hook from here on: only the store is read, until the frontier is under the threshold.
    await vi.waitFor(async () => expect(await frontierTokens(engine, "imp")).toBeLessThan(threshold), { timeout: 120_000, interval: 50 });
    expect(model.calls).toBeGreaterThan(callsAfterTurn);
    expect(counters(engine).drains).toBeGreaterThanOrEqual(1);
    await engine.whenIdle("imp");

    // The next compress and selectContext start from what the drain published.
    const next: Message[] = [...live, { role: "user", content: "what did we fix first?" }];
    const out = await engine.compress(next, { sessionId: "imp" });
    expect(checkConversation(out)).toEqual([]);
    const big: Message[] = [...imported, { role: "user", content: "and now?" }];
    const selected = await engine.selectContext(big, { sessionId: "imp" });
    expect(selected).not.toBeNull();
    expect(checkConversation(selected!)).toEqual([]);
    const found = await engine.handleToolCall("lcm_grep", { query: "CANARY_41_0" }, { sessionId: "imp" });
    expect(found).toContain("CANARY_41_0");
  }, 180_000);

  it("resumes after a restart mid-drain (the state is the stored frontier) and finishes", async () => {
    const store = sharedStore();
    const slow = new FakeSummarizer();
    slow.delayMs = 15;
    // A compress of 4 passes leaves most of the history to the drain.
    const config = { max_passes: 4, backlog_passes: 2 };
    const first = store.open({ chatModel: slow, config });
    await firstTurn(first, "re", history(3_000, 43));
    const threshold = first.thresholdTokens;
    const afterTurn = counters(first).published;
    // Stop the process once the drain has published a little, well before it is done.
    await vi.waitFor(() => expect(counters(first).published).toBeGreaterThan(afterTurn + 1), { timeout: 60_000, interval: 5 });
    await first.close();
    const left = await frontierAfterRestart(store.open({ chatModel: new FakeSummarizer() }), "re");
    expect(left).toBeGreaterThanOrEqual(threshold);

    const model = new FakeSummarizer();
    const second = store.open({ chatModel: model, config });
    // The restarted host opens the session; nothing else.
    await second.onSessionStart("re");
    await vi.waitFor(async () => expect(await frontierTokens(second, "re")).toBeLessThan(threshold), { timeout: 120_000, interval: 50 });
    expect(model.calls).toBeGreaterThan(0);
    await second.whenIdle("re");
    const out = await second.compress([{ role: "user", content: "still there?" }], { sessionId: "re" });
    expect(checkConversation(out)).toEqual([]);
    expect(await second.handleToolCall("lcm_grep", { query: "CANARY_43_0" }, { sessionId: "re" })).toContain("CANARY_43_0");
  }, 180_000);

  it("a compress during a drain run is not held up by it, and the drain's work that it overtook is dropped, not doubled", async () => {
    const model = new FakeSummarizer();
    model.delayMs = 20;
    const engine = sharedStore().open({ chatModel: model, config: { compress_time_budget_ms: 200, max_passes: 4, backlog_passes: 2 } });
    const live = await firstTurn(engine, "cc", history(3_000, 47));
    const threshold = engine.thresholdTokens;
    // The drain's next summariser call hangs; a compress arrives meanwhile and must finish without it.
    model.hold();
    const held = model.calls;
    await vi.waitFor(() => expect(model.calls).toBeGreaterThan(held), { timeout: 30_000, interval: 5 });
    expect(counters(engine).drains).toBeGreaterThanOrEqual(1);
    const out = await engine.compress([...live, { role: "user", content: "now" }], { sessionId: "cc", force: true });
    expect(checkConversation(out)).toEqual([]);
    model.release();
    await engine.whenIdle("cc");
    expect(await frontierTokens(engine, "cc")).toBeLessThan(threshold);
    // The frontier names every item once: the compress that overtook the drain left no second copy of a run.
    const conv = (await engine.store.findConversation("cc"))!;
    const frontier = await engine.store.getFrontier(conv.id);
    const seen = new Set<string>();
    for (const item of frontier.items) {
      const key = item.kind === "message" ? `m${item.messageId}` : `s${item.summaryId}`;
      expect(seen.has(key)).toBe(false);
      seen.add(key);
    }
    const again = await engine.compress([...live, { role: "user", content: "and again" }], { sessionId: "cc" });
    expect(checkConversation(again)).toEqual([]);
  }, 180_000);

  it("two engines on one store (as two processes would be): one drains while the other compresses; the compaction lock keeps them apart", async () => {
    const store = sharedStore();
    const config = { max_passes: 4, backlog_passes: 2 };
    const draining = store.open({ chatModel: new FakeSummarizer(), config });
    const live = await firstTurn(draining, "two", history(3_000, 53));
    const threshold = draining.thresholdTokens;
    const other = store.open({ chatModel: new FakeSummarizer(), config: { ...config, prepare_in_background: false } });
    // The other process compresses the same conversation while the drain runs.
    const outs = await Promise.all([1, 2, 3].map((k) => other.compress([...live, { role: "user", content: `from the other process ${k}` }], { sessionId: "two" })));
    for (const out of outs) expect(checkConversation(out)).toEqual([]);
    await draining.whenIdle("two");
    await vi.waitFor(async () => expect(await frontierTokens(draining, "two")).toBeLessThan(threshold), { timeout: 60_000, interval: 50 });
    const conv = (await draining.store.findConversation("two"))!;
    const items = (await draining.store.getFrontier(conv.id)).items;
    const keys = items.map((i) => (i.kind === "message" ? `m${i.messageId}` : `s${i.summaryId}`));
    expect(new Set(keys).size).toBe(keys.length);
    expect(await other.handleToolCall("lcm_grep", { query: "CANARY_53_0" }, { sessionId: "two" })).toContain("CANARY_53_0");
  }, 180_000);

  it("a drain claim is held by one owner at a time, renewed by it, and freed by release or expiry", async () => {
    const engine = sharedStore().open({ chatModel: new FakeSummarizer() });
    await engine.onSessionStart("claims");
    const store = engine.store;
    const id = (await store.conversation("claims")).id;
    expect(await store.claimDrain!(id, "a", 1_000, 0)).toBe(true);
    expect(await store.claimDrain!(id, "b", 1_000, 500)).toBe(false);
    expect(await store.claimDrain!(id, "a", 1_000, 900)).toBe(true); // renewed: now held until 1,900
    expect(await store.claimDrain!(id, "b", 1_000, 1_500)).toBe(false);
    // "a" died without releasing: its claim blocks nobody past its expiry
    expect(await store.claimDrain!(id, "b", 1_000, 1_900)).toBe(true);
    await store.releaseDrain!(id, "a"); // not the holder: nothing happens
    expect(await store.claimDrain!(id, "a", 1_000, 2_000)).toBe(false);
    await store.releaseDrain!(id, "b");
    expect(await store.claimDrain!(id, "a", 1_000, 2_000)).toBe(true);
  });

  it("two engines on one store draining one conversation: the second waits on the first's claim and computes nothing", async () => {
    const store = sharedStore();
    const first = new FakeSummarizer();
    const second = new FakeSummarizer();
    const draining = store.open({ chatModel: first, config: { backlog_passes: 2 } });
    await firstTurn(draining, "dup", history(10_000, 61));
    const threshold = draining.thresholdTokens;
    expect(await frontierTokens(draining, "dup")).toBeGreaterThan(threshold);
    // A second process opens the same conversation while the first drains: its hook starts its own drain.
    const other = store.open({ chatModel: second, config: { backlog_passes: 2 } });
    await other.onSessionStart("dup");
    await Promise.all([draining.whenIdle("dup"), other.whenIdle("dup")]);
    await vi.waitFor(async () => expect(await frontierTokens(draining, "dup")).toBeLessThan(threshold), { timeout: 120_000, interval: 100 });
    const waited = (other.getStatus() as unknown as { lcm: { drainClaimWaits: number } }).lcm.drainClaimWaits;
    expect(waited).toBeGreaterThan(0);
    expect(counters(other).drainRuns, "the second engine's drain runs").toBe(0);
    expect(second.calls, "the second engine's summariser calls").toBe(0);
    expect(first.calls).toBeGreaterThan(0);
  }, 240_000);
});

/** The stored frontier as a freshly opened engine reads it (then closed, so it drains nothing itself). */
async function frontierAfterRestart(engine: LcmEngine, sessionId: string): Promise<number> {
  await engine.openStore();
  const tokens = await frontierTokens(engine, sessionId);
  await engine.close();
  return tokens;
}
