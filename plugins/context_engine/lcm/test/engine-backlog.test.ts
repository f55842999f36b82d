import { afterEach, describe, expect, it } from "vitest";
import { checkConversation } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import type { LcmEngine } from "../src/index.js";
import type { FrontierReadOptions } from "../src/store/types.js";
import { agentConversation, FakeSummarizer } from "./engine-helpers.js";
import { makeEngine } from "./engine-setup.js";

// A long history handed over at once (a resumed session, an import, an adapter's thread): the first compress
// summarises what it can, and the rest (the backlog) drains in the background, a few summaries per run, each
// run reading only what was appended to the frontier since the last one.

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

interface Counters {
  published: number;
  stalePrepared: number;
  prepareRuns: number;
  drainRuns: number;
}

function counters(engine: LcmEngine): Counters {
  return (engine.getStatus() as unknown as { lcm: Counters }).lcm;
}

/** Count the store's whole-frontier reads (a read with `afterOrdinal` reads only the appended part). */
function countWholeReads(engine: LcmEngine): { whole: number } {
  const store = engine.store as { getFrontier: (id: number, options?: FrontierReadOptions) => unknown };
  const original = store.getFrontier.bind(store);
  const seen = { whole: 0 };
  store.getFrontier = (id, options) => {
    if (options?.afterOrdinal === undefined) seen.whole++;
    return original(id, options);
  };
  return seen;
}

/** Count the frontier items the store's reads return (whole or appended parts). */
function countItemsRead(engine: LcmEngine): { items: number; reads: number } {
  const store = engine.store as { getFrontier: (id: number, options?: FrontierReadOptions) => Promise<{ items: unknown[] }> };
  const original = store.getFrontier.bind(store);
  const seen = { items: 0, reads: 0 };
  store.getFrontier = async (id, options) => {
    const frontier = await original(id, options);
    seen.reads++;
    seen.items += frontier.items.length;
    return frontier;
  };
  return seen;
}

/** The store's ingest without its report of the frontier items appended: the session reads them back, as before it had one. */
function withoutAppendReport(engine: LcmEngine): void {
  const store = engine.store as { ingest: (...args: unknown[]) => Promise<{ frontierAppend?: unknown }> };
  const original = store.ingest.bind(store);
  store.ingest = async (...args) => {
    const result = await original(...args);
    delete result.frontierAppend;
    return result;
  };
}

describe("a long history handed over at once", () => {
  it("the first compress plans from what the ingest appended, reading no frontier item back, with the same result as reading it", async () => {
    const history = agentConversation(120, 5);
    const run = async (report: boolean) => {
      const made = makeEngine({ chatModel: new FakeSummarizer(), contextLength: 8_000, config: { max_passes: 3, backlog_passes: 2 } });
      cleanups.push(made.cleanup);
      await made.engine.openStore();
      if (!report) withoutAppendReport(made.engine);
      const read = countItemsRead(made.engine);
      const out = await made.engine.compress(structuredClone(history), { sessionId: "f" });
      const readByCompress = { ...read };
      await made.engine.whenIdle("f");
      const conv = (await made.engine.store.findConversation("f"))!;
      const frontier = await made.engine.store.getFrontier(conv.id);
      return { out, read: readByCompress, frontier: { tokens: frontier.tokens, count: frontier.count, items: frontier.items.map(({ ordinal, tokens, kind }) => ({ ordinal, tokens, kind })) }, published: counters(made.engine).published };
    };
    const fromIngest = await run(true);
    const readBack = await run(false);
    expect(readBack.read.items).toBeGreaterThan(history.length / 2);
    expect(fromIngest.read.items).toBe(0);
    expect(fromIngest.published).toBeGreaterThan(0);
    expect(fromIngest.out).toEqual(readBack.out);
    expect(fromIngest.frontier).toEqual(readBack.frontier);
    expect(fromIngest.published).toBe(readBack.published);
  });

  it("a frontier over the threshold is published in the background, a few summaries per run, without reading the frontier whole again", async () => {
    const model = new FakeSummarizer();
    const made = makeEngine({ chatModel: model, contextLength: 8_000, config: { max_passes: 3, backlog_passes: 2 } });
    cleanups.push(made.cleanup);
    const engine = made.engine;
    await engine.openStore();
    const history = agentConversation(120, 5);

    // The host's first send: the whole history, over the threshold. Its compress runs max_passes passes only.
    let live: Message[] = await engine.compress(history, { sessionId: "b" });
    expect(checkConversation(live)).toEqual([]);
    const conv = (await engine.store.findConversation("b"))!;
    const reads = countWholeReads(engine);
    // No host call: the scheduled drain publishes, run after run, until the frontier is under the threshold.
    await engine.whenIdle("b");
    const drained = (await engine.store.getConversation(conv.id))!;
    expect(drained.frontierTokens).toBeLessThan(engine.thresholdTokens);
    expect(counters(engine).drainRuns).toBeGreaterThan(2);
    // Each run extended the session's copy of the frontier; none went stale against the store.
    expect(reads.whole).toBe(0);
    expect(counters(engine).stalePrepared).toBe(0);

    // What the drain published is what the next compress starts from: nothing read again, nothing lost.
    live = [...live, { role: "user", content: "where were we?" }];
    const out = await engine.compress(live, { sessionId: "b" });
    expect(checkConversation(out)).toEqual([]);
    expect(reads.whole).toBe(0);
    const found = await engine.handleToolCall("lcm_grep", { query: "CANARY_5_0" }, { sessionId: "b" });
    expect(found).toContain("CANARY_5_0");
  });

  it("a host that continues from the compacted list never has its list compared whole with the store again", async () => {
    const made = makeEngine({ chatModel: new FakeSummarizer(), contextLength: 8_000 });
    cleanups.push(made.cleanup);
    const engine = made.engine;
    const source = agentConversation(60, 7);
    let live: Message[] = [source[0]!];
    let compactions = 0;
    // The host's loop: compress at the threshold and continue from its result; every turn ends with onTurnComplete.
    for (let i = 1; i < source.length; ) {
      const turn: Message[] = [source[i++]!];
      while (i < source.length && source[i]!.role !== "user") turn.push(source[i++]!);
      if (engine.shouldCompress(engine.lastPromptTokens)) {
        const out = await engine.compress(structuredClone(live), { sessionId: "p" });
        if (out.length !== live.length) compactions++;
        live = out;
      }
      live = [...live, ...turn];
      await engine.onTurnComplete(structuredClone(live), null, { sessionId: "p" });
      engine.updateFromResponse({ prompt_tokens: JSON.stringify(live).length / 4, completion_tokens: 10, total_tokens: 0 });
      await engine.whenIdle("p");
    }
    expect(compactions).toBeGreaterThan(1);
    expect(checkConversation(live)).toEqual([]);
    // Every ingest continued from a writer position: the compacted list's end is recorded as one.
    expect((engine.getStatus() as unknown as { lcm: { reconciled: number } }).lcm.reconciled).toBe(0);
    const conv = (await engine.store.findConversation("p"))!;
    expect(conv.messageCount).toBe(source.length - 1);
  });

  it("a change it did not make (another writer's summary, a reset frontier) is noticed and read again whole", async () => {
    const model = new FakeSummarizer();
    // Preparation from 30 % of the threshold: the drained frontier (under the threshold) still prepares.
    const made = makeEngine({ chatModel: model, contextLength: 8_000, config: { max_passes: 3, backlog_passes: 2, prepare_ratio: 0.3 } });
    cleanups.push(made.cleanup);
    const engine = made.engine;
    await engine.openStore();
    let live: Message[] = await engine.compress(agentConversation(80, 6), { sessionId: "c" });
    await engine.whenIdle("c");
    const conv = (await engine.store.findConversation("c"))!;
    // Another writer replaces the frontier behind the engine's back.
    const frontier = await engine.store.getFrontier(conv.id);
    await engine.store.setFrontier(conv.id, frontier.items.slice(1));
    const reads = countWholeReads(engine);
    live = [...live, { role: "user", content: "next" }, { role: "assistant", content: "ok" }];
    await engine.onTurnComplete(live, null, { sessionId: "c" });
    await engine.whenIdle("c");
    expect(reads.whole).toBeGreaterThanOrEqual(1);
    expect(counters(engine).stalePrepared).toBe(0);
    const out = await engine.compress([...live, { role: "user", content: "go on" }], { sessionId: "c" });
    expect(checkConversation(out)).toEqual([]);
  });
});
