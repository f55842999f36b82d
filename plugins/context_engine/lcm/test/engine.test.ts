import { afterEach, describe, expect, it, vi } from "vitest";
import { checkConversation, contentText, defaultTokenCounter, isContextEngine } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { LcmEngine, configSchema, CONTEXT_TAG } from "../src/index.js";
import { agentConversation, FakeSummarizer, tempDir } from "./engine-helpers.js";
import { makeEngine, TEST_STORE, testStore } from "./engine-setup.js";

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function setup(ctx: Parameters<typeof makeEngine>[0] = {}) {
  const made = makeEngine(ctx);
  cleanups.push(made.cleanup);
  return made.engine;
}

function text(messages: readonly Message[]): string {
  return messages.map((m) => contentText(m.content ?? "")).join("\n");
}

describe("LcmEngine basics", () => {
  it("is a context engine named lcm with validated config", () => {
    const engine = setup();
    expect(isContextEngine(engine)).toBe(true);
    expect(engine.name).toBe("lcm");
    expect(engine.config.fresh_tail_count).toBe(32);
    expect(configSchema.safeParse({ fresh_tail_count: 8 }).success).toBe(true);
    expect(() => new LcmEngine({ config: { fresh_tail_count: "many" } })).toThrow(/engines\.lcm\.fresh_tail_count/);
    expect(() => new LcmEngine({ config: { fresh_tail_cuont: 3 } })).toThrow(/fresh_tail_cuont|Unrecognized/);
  });

  it("constructing an engine opens nothing; the threshold follows the context length", () => {
    const engine = new LcmEngine({ contextLength: 100_000, config: { context_threshold: 0.5 } });
    expect(engine.thresholdTokens).toBe(50_000);
    expect(engine.shouldCompress(49_999)).toBe(false);
    expect(engine.shouldCompress(50_000)).toBe(true);
    engine.close();
  });

  it("returns the very input when there is nothing to compact", async () => {
    const engine = setup({ contextLength: 200_000 });
    const input: Message[] = [
      { role: "system", content: "sys" },
      { role: "user", content: "hello" },
      { role: "assistant", content: "hi" },
    ];
    const out = await engine.compress(input, { sessionId: "s1" });
    expect(out).toBe(input);
  });
});

describe("compaction and assembly", () => {
  it("compacts a long tool-heavy session under budget with valid tool pairs and the system prompt first", async () => {
    const model = new FakeSummarizer();
    const engine = setup({ chatModel: model });
    const input = agentConversation(40, 7);
    const before = defaultTokenCounter.countMessages(input);
    const out = await engine.compress(input, { sessionId: "a" });
    expect(out).not.toBe(input);
    const after = defaultTokenCounter.countMessages(out);
    expect(after).toBeLessThan(engine.thresholdTokens);
    expect(after).toBeLessThan(before);
    expect(checkConversation(out)).toEqual([]);
    expect(out[0]).toEqual(input[0]);
    expect(contentText(out[1]!.content)).toContain(CONTEXT_TAG);
    // The newest message survives verbatim at the end.
    expect(out[out.length - 1]).toEqual(input[input.length - 1]);
    expect(model.calls).toBeGreaterThan(0);
    // Every original message is stored exactly once.
    const conv = (await engine.store.findConversation("a"))!;
    expect(conv.messageCount).toBe(input.length - 1);
  });

  it("is idempotent and byte-stable: the same list again stores nothing and returns the same prefix", async () => {
    const engine = setup({ chatModel: new FakeSummarizer() });
    const input = agentConversation(30, 3);
    const first = await engine.compress(input, { sessionId: "a" });
    const count = (await engine.store.findConversation("a"))!.messageCount;
    const second = await engine.compress(first, { sessionId: "a" });
    expect(second).toBe(first);
    expect((await engine.store.findConversation("a"))!.messageCount).toBe(count);
    // Growing the list stores only the growth, and the summary block stays byte-identical.
    const grown = [...first, { role: "user", content: "one more question" } as Message];
    const third = await engine.compress(grown, { sessionId: "a" });
    expect((await engine.store.findConversation("a"))!.messageCount).toBe(count + 1);
    expect(JSON.stringify(third[1])).toBe(JSON.stringify(first[1]));
  });

  it("a compaction that only adds leaves keeps the old summary block as a byte prefix (prompt cache)", async () => {
    const engine = setup({ contextLength: 32_000, chatModel: new FakeSummarizer(), config: { condensed_fanout: 32 } });
    const first = await engine.compress(agentConversation(70, 91), { sessionId: "a" });
    const grown = [...first, ...agentConversation(50, 92).slice(1)];
    const second = await engine.compress(grown, { sessionId: "a" });
    const a = contentText(first[1]!.content);
    const b = contentText(second[1]!.content);
    expect(a).toContain(CONTEXT_TAG);
    const stable = a.slice(0, a.lastIndexOf("</summary>") + "</summary>".length);
    expect(b.length).toBeGreaterThan(a.length);
    expect(b.startsWith(stable)).toBe(true);
  });

  it("keeps sessions apart on one instance", async () => {
    const engine = setup({ chatModel: new FakeSummarizer() });
    const a = await engine.compress(agentConversation(30, 11), { sessionId: "a" });
    const b = await engine.compress(agentConversation(30, 22), { sessionId: "b" });
    expect(text(a)).toContain("CANARY_11_");
    expect(text(a)).not.toContain("CANARY_22_");
    expect(text(b)).toContain("CANARY_22_");
    expect(text(b)).not.toContain("CANARY_11_");
  });

  it("falls back to a deterministic summary that really compresses when there is no model", async () => {
    const engine = setup();
    const out = await engine.compress(agentConversation(40, 5), { sessionId: "a" });
    expect(checkConversation(out)).toEqual([]);
    const conv = (await engine.store.findConversation("a"))!;
    const summaries = (await engine.store.listSummaries(conv.id));
    expect(summaries.length).toBeGreaterThan(0);
    for (const s of summaries) {
      expect(s.level).toBe("fallback");
      expect(s.tokens).toBeLessThanOrEqual(engine.config.fallback_max_tokens);
      expect(s.tokens).toBeLessThan(s.sourceTokens);
    }
  });

  it("auth failures open the circuit breaker instead of calling the model on every pass", async () => {
    const model = new FakeSummarizer();
    model.mode = "auth";
    const engine = setup({ chatModel: model });
    const out = await engine.compress(agentConversation(60, 9), { sessionId: "a" });
    expect(checkConversation(out)).toEqual([]);
    expect(model.calls).toBeLessThanOrEqual(engine.config.circuit_breaker_failures);
    const conv = (await engine.store.findConversation("a"))!;
    expect((await engine.store.listSummaries(conv.id)).every((s) => s.level === "fallback")).toBe(true);
  });

  it("rejects summaries that copy the input or invent identifiers", async () => {
    for (const mode of ["copy", "invent"] as const) {
      const model = new FakeSummarizer();
      model.mode = mode;
      const engine = setup({ chatModel: model });
      await engine.compress(agentConversation(30, 4), { sessionId: "a" });
      const conv = (await engine.store.findConversation("a"))!;
      const summaries = (await engine.store.listSummaries(conv.id));
      expect(summaries.length).toBeGreaterThan(0);
      for (const s of summaries) {
        expect(s.level).toBe("fallback");
        expect(s.content).not.toContain("/etc/invented");
      }
    }
  });

  it("a blocking compress stops starting model summaries once its time budget is spent", async () => {
    const model = new FakeSummarizer();
    model.delayMs = 400;
    const engine = setup({ chatModel: model, config: { compress_time_budget_ms: 300, prepare_in_background: false } });
    const out = await engine.compress(agentConversation(60, 81), { sessionId: "a" });
    expect(checkConversation(out)).toEqual([]);
    expect(defaultTokenCounter.countMessages(out)).toBeLessThan(engine.thresholdTokens);
    // At most the call started before the deadline; every later pass is deterministic.
    expect(model.calls).toBeLessThanOrEqual(1);
    const conv = (await engine.store.findConversation("a"))!;
    const summaries = (await engine.store.listSummaries(conv.id));
    expect(summaries.length).toBeGreaterThan(1);
    expect(summaries.filter((s) => s.level === "normal").length).toBeLessThanOrEqual(1);
    expect(summaries.some((s) => s.level === "fallback" && s.meta?.fallbackReason === "compress time budget spent")).toBe(true);
  });

  it("condenses same-depth summaries into a higher node as the session grows", async () => {
    const engine = setup({ chatModel: new FakeSummarizer(), config: { leaf_chunk_tokens: 600, condensed_fanout: 3 } });
    let list: Message[] = agentConversation(10, 1);
    for (let round = 0; round < 8; round++) {
      list = await engine.compress([...list, ...agentConversation(10, 100 + round).slice(1)], { sessionId: "a" });
      expect(checkConversation(list)).toEqual([]);
      expect(defaultTokenCounter.countMessages(list)).toBeLessThan(engine.thresholdTokens);
    }
    const conv = (await engine.store.findConversation("a"))!;
    const depths = (await engine.store.listSummaries(conv.id)).map((s) => s.depth);
    expect(Math.max(...depths)).toBeGreaterThanOrEqual(1);
  });

  it("shows a huge tool result shortened, keeps the original in the store", async () => {
    const engine = setup({ contextLength: 16_000, chatModel: new FakeSummarizer() });
    const input = agentConversation(12, 8, { bigEvery: 5 });
    const out = await engine.compress(input, { sessionId: "a" });
    expect(defaultTokenCounter.countMessages(out)).toBeLessThan(engine.thresholdTokens);
    expect(checkConversation(out)).toEqual([]);
    const conv = (await engine.store.findConversation("a"))!;
    const stored = (await engine.store.getMessages(conv.id));
    const biggest = Math.max(...stored.map((m) => m.tokens));
    expect(biggest).toBeGreaterThan(engine.config.large_message_tokens);
  });
});

describe("prepared work and atomic publish", () => {
  it("prepares summaries after a turn without blocking it, and compress publishes them", async () => {
    const model = new FakeSummarizer();
    const engine = setup({ chatModel: model });
    // Between the preparation point and the threshold (whole turns): the prepared work waits for the compress.
    // Over the threshold the scheduled drain publishes it instead (engine-drain.test.ts).
    const all = agentConversation(40, 12);
    let input: Message[] = [all[0]!];
    for (let i = 1; i < all.length; i++) {
      if (all[i]!.role !== "user") continue;
      const next = all.slice(0, all.findIndex((m, k) => k > i && m.role === "user"));
      if (defaultTokenCounter.countMessages(next) >= engine.thresholdTokens * 0.95) break;
      input = next;
    }
    expect(defaultTokenCounter.countMessages(input)).toBeGreaterThan(engine.thresholdTokens * 0.6);
    model.hold();
    let done = false;
    const turn = engine.onTurnComplete(input, null, { sessionId: "a" }).then(() => (done = true));
    await turn;
    // The turn finished although the summariser has not answered yet (preparation runs after it).
    expect(done).toBe(true);
    await vi.waitFor(() => expect(model.calls).toBeGreaterThan(0));
    const conv = (await engine.store.findConversation("a"))!;
    expect((await engine.store.listSummaries(conv.id))).toHaveLength(0);
    model.release();
    await engine.whenIdle("a");
    const callsAfterPrepare = model.calls;
    const summariesIn = async () => (await engine.store.getFrontier(conv.id)).items.filter((i) => i.kind === "summary").length;
    // Prepared and written ahead (so the trigger only swaps them in), not published: the active context is unchanged.
    const written = await engine.store.listSummaries(conv.id);
    expect(written.length).toBeGreaterThan(0);
    expect(await summariesIn()).toBe(0);
    const out = await engine.compress(input, { sessionId: "a" });
    expect(await summariesIn()).toBeGreaterThan(0);
    // What the trigger put in the active context are the summaries written ahead.
    const shown = (await engine.store.getFrontier(conv.id)).items.flatMap((i) => (i.kind === "summary" ? [i.summaryId] : []));
    const writtenIds = new Set(written.map((w) => w.id));
    expect(shown.filter((id) => writtenIds.has(id)).length).toBeGreaterThan(0);
    expect(checkConversation(out)).toEqual([]);
    // Publishing what was prepared needed few or no new summariser calls.
    expect(model.calls - callsAfterPrepare).toBeLessThan(callsAfterPrepare);
  });

  it("during a long agent turn, selectContext starts the preparation so compress finds the summaries ready", async () => {
    const model = new FakeSummarizer();
    const engine = setup({ chatModel: model });
    const all = agentConversation(40, 19);
    let live: Message[] = [all[0]!];
    for (const m of all.slice(1)) {
      live = [...live, m];
      if (defaultTokenCounter.countMessages(live) >= engine.thresholdTokens) break;
      expect(await engine.selectContext(live, { sessionId: "a" })).toBeNull();
    }
    await engine.whenIdle("a");
    const prepared = model.calls;
    expect(prepared).toBeGreaterThan(0);
    const out = await engine.compress(live, { sessionId: "a" });
    expect(checkConversation(out)).toEqual([]);
    expect(model.calls - prepared).toBeLessThan(prepared);
  });

  it("an aborted compress publishes nothing, and the next one reuses the finished work", async () => {
    const model = new FakeSummarizer();
    const engine = setup({ chatModel: model, config: { prepare_in_background: false } });
    const input = agentConversation(40, 13);
    const controller = new AbortController();
    model.hold();
    const pending = engine.compress(input, { sessionId: "a", signal: controller.signal });
    await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    model.release();
    const out = await pending;
    expect(out).toBe(input);
    const conv = (await engine.store.findConversation("a"))!;
    expect((await engine.store.listSummaries(conv.id))).toHaveLength(0);
    const again = await engine.compress(input, { sessionId: "a" });
    expect(again).not.toBe(input);
    expect((await engine.store.listSummaries(conv.id)).length).toBeGreaterThan(0);
  });

  it("a prepared step whose messages changed under it is dropped, not forced in", async () => {
    const model = new FakeSummarizer();
    const engine = setup({ chatModel: model });
    const input = agentConversation(40, 14);
    await engine.onTurnComplete(input, null, { sessionId: "a" });
    await engine.whenIdle("a");
    // The user resets: the active context is emptied, so the prepared runs no longer exist.
    engine.onSessionStart("a");
    engine.onSessionReset();
    const fresh: Message[] = [{ role: "system", content: "sys" }, { role: "user", content: "new start" }];
    const out = await engine.compress(fresh, { sessionId: "a" });
    expect(text(out)).not.toContain("CANARY_14_");
    expect(checkConversation(out)).toEqual([]);
  });
});

describe("session boundaries", () => {
  it("a session renamed at a compaction boundary keeps its summaries", async () => {
    const engine = setup({ chatModel: new FakeSummarizer() });
    engine.onSessionStart("s1");
    const compacted = await engine.compress(agentConversation(40, 71), { sessionId: "s1" });
    const block = compacted[1];
    expect(contentText(block!.content)).toContain(CONTEXT_TAG);
    await engine.onSessionEnd("s1", compacted);
    engine.onSessionStart("s2", { boundaryReason: "compression", oldSessionId: "s1" });
    const grown = [...compacted, { role: "user", content: "and now?" } as Message];
    const next = await engine.compress(grown, { sessionId: "s2", force: false });
    expect(text(next)).toContain("and now?");
    expect(contentText(next[1]!.content)).toContain(CONTEXT_TAG);
    expect((await engine.store.findConversation("s2"))).toBeNull();
    expect((await engine.store.findConversation("s1"))!.messageCount).toBe(agentConversation(40, 71).length); // + the new one, - the system prompt
  });

  it("a reset under a new session id leaves the old conversation's context intact", async () => {
    const engine = setup({ chatModel: new FakeSummarizer() });
    engine.onSessionStart("old");
    const compacted = await engine.compress(agentConversation(40, 72), { sessionId: "old" });
    await engine.onSessionEnd("old", compacted);
    engine.onSessionReset();
    engine.onSessionStart("fresh", { boundaryReason: "reset", oldSessionId: "old" });
    const fresh = await engine.compress([{ role: "system", content: "sys" }, { role: "user", content: "hello" }], { sessionId: "fresh" });
    expect(text(fresh)).not.toContain("CANARY_72_");
    // Resuming the old session later still shows its compacted context.
    const resumed = await engine.compress(compacted, { sessionId: "old" });
    expect(text(resumed)).toContain("CANARY_72_39");
    expect(contentText(resumed[1]!.content)).toContain(CONTEXT_TAG);
  });
});

describe("selectContext and tools", () => {
  it("leaves small requests untouched and rescues oversized ones", async () => {
    const engine = setup({ chatModel: new FakeSummarizer() });
    const small: Message[] = [{ role: "user", content: "hi" }];
    expect(await engine.selectContext(small, { sessionId: "a" })).toBeNull();
    const big = agentConversation(60, 15);
    await engine.compress(big.slice(0, 150), { sessionId: "a" });
    const selected = await engine.selectContext(big, { sessionId: "a" });
    expect(selected).not.toBeNull();
    expect(defaultTokenCounter.countMessages(selected!)).toBeLessThan(engine.thresholdTokens);
    expect(checkConversation(selected!)).toEqual([]);
    const again = await engine.selectContext(big, { sessionId: "a" });
    expect(JSON.stringify(again)).toBe(JSON.stringify(selected));
    // Over the threshold but within the window: left to compress, so the cache prefix is not rewritten.
    let n = 2;
    while (defaultTokenCounter.countMessages(big.slice(0, n + 1)) < engine.thresholdTokens + 200) n++;
    const mid = big.slice(0, n + 1);
    expect(defaultTokenCounter.countMessages(mid)).toBeLessThan(engine.contextLength * 0.95);
    expect(await engine.selectContext(mid, { sessionId: "a" })).toBeNull();
  });

  it("a rescued request keeps its selection as the host appends: the prefix stays byte-identical", async () => {
    const engine = setup({ chatModel: new FakeSummarizer(), config: { prepare_in_background: false } });
    const big = agentConversation(60, 18);
    const first = (await engine.selectContext(big, { sessionId: "r" }))!;
    expect(first).not.toBeNull();
    const grown = [...big, { role: "user", content: "next step" } as Message];
    const second = (await engine.selectContext(grown, { sessionId: "r" }))!;
    expect(JSON.stringify(second.slice(0, first.length))).toBe(JSON.stringify(first));
    expect(second[second.length - 1]).toEqual({ role: "user", content: "next step" });
    expect(checkConversation(second)).toEqual([]);
  });

  it("exposes the LCM tools and answers them for the calling session", async () => {
    const engine = setup({ chatModel: new FakeSummarizer() });
    const names = engine.getToolSchemas().map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["lcm_grep", "lcm_describe", "lcm_expand"]));
    const input = agentConversation(40, 16);
    await engine.compress(input, { sessionId: "a" });
    const res = JSON.parse(await engine.handleToolCall("lcm_grep", { query: "CANARY_16_0" }, { sessionId: "a" }));
    expect(JSON.stringify(res)).toContain("CANARY_16_0");
    const unknown = JSON.parse(await engine.handleToolCall("nope", {}, { sessionId: "a" }));
    expect(unknown.error).toBeTruthy();
  });

  it("a new instance on the same dataDir finds the earlier session through its tools", async () => {
    const t = testStore();
    cleanups.push(t.cleanup);
    const first = new LcmEngine({ dataDir: t.dataDir, config: t.config, contextLength: 8_000, chatModel: new FakeSummarizer() });
    await first.onSessionStart("persist");
    const compacted = await first.compress(agentConversation(40, 31), { sessionId: "persist" });
    await first.onSessionEnd("persist", compacted);
    await first.close();
    const second = new LcmEngine({ dataDir: t.dataDir, config: t.config, contextLength: 8_000 });
    await second.onSessionStart("persist");
    const res = await second.handleToolCall("lcm_grep", { query: "CANARY_31_0" }, { sessionId: "persist", messages: [] });
    await second.close();
    expect(res).toContain("CANARY_31_0");
    expect(JSON.parse(res).hits.length).toBeGreaterThan(0);
  });

  it("reports LCM metrics in getStatus", async () => {
    const engine = setup({ chatModel: new FakeSummarizer() });
    engine.onSessionStart("a");
    await engine.compress(agentConversation(40, 17), { sessionId: "a" });
    type Status = { lcm: { session: { messages: number }; database?: { summaries: number }; store: { kind: string } } };
    const status = engine.getStatus() as unknown as Status;
    expect(status.lcm.session.messages).toBeGreaterThan(100);
    expect(status.lcm.store.kind).toBe(TEST_STORE);
    // Database figures come from a refresh off the hook's path (getStatus never calls the store).
    await vi.waitFor(() => expect((engine.getStatus() as unknown as Status).lcm.database?.summaries).toBeGreaterThan(0));
  });
});

describe("data hygiene", () => {
  it("redacts secrets before storage and before the summariser, on by default", async () => {
    const model = new FakeSummarizer();
    const engine = setup({ chatModel: model });
    const secret = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0";
    const input = agentConversation(40, 41);
    input[1] = { role: "user", content: `my key is ${secret}, fix CANARY_41_0` };
    const out = await engine.compress(input, { sessionId: "a" });
    const conv = (await engine.store.findConversation("a"))!;
    expect((await engine.store.getMessages(conv.id)).some((m) => m.text.includes(secret))).toBe(false);
    expect(model.requests.some((r) => JSON.stringify(r.messages).includes(secret))).toBe(false);
    expect(JSON.stringify(out)).not.toContain(secret);
  });

  it("forgetSession hard-deletes one session and leaves the others", async () => {
    const engine = setup({ chatModel: new FakeSummarizer(), config: { cross_conversation: true } });
    await engine.compress(agentConversation(30, 51), { sessionId: "a" });
    await engine.compress(agentConversation(30, 52), { sessionId: "b" });
    const report = await engine.forgetSession("a");
    expect(report?.messages).toBeGreaterThan(0);
    expect((await engine.store.findConversation("a"))).toBeNull();
    expect((await engine.store.findConversation("b"))!.messageCount).toBeGreaterThan(0);
    const res = await engine.handleToolCall("lcm_grep", { query: "CANARY_51_0", all_conversations: true }, { sessionId: "b" });
    expect(JSON.parse(res).hits).toEqual([]);
  });

  it("applies the retention policy when a session ends, never to a live session", async () => {
    const engine = setup({ config: { retention: { max_conversations: 1 } } });
    engine.onSessionStart("old");
    await engine.onTurnComplete(agentConversation(3, 61), null, { sessionId: "old" });
    await engine.onSessionEnd("old", []);
    engine.onSessionStart("new");
    await engine.onTurnComplete(agentConversation(3, 62), null, { sessionId: "new" });
    await engine.onSessionEnd("new", []);
    expect((await engine.store.findConversation("new"))).not.toBeNull();
    expect((await engine.store.findConversation("old"))).toBeNull();
  });
});
