// The adapter under OpenClaw's real call sequence: the model's window kept apart from per-call
// budgets, each assemble fitted to its budget, a compaction that sticks across steps and turns,
// compact in a process that has assembled nothing, turn identity, host-internal runs, recovered turns.
import { ContextEngine, defaultTokenCounter } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { ContextCompressor } from "@context-engine/compressor";
import { describe, expect, it } from "vitest";
import { createOpenClawContextEngine, defineContextEnginePlugin, toOpenAiMessages } from "../src/index.js";
import type { OcAgentMessage, OpenClawContextEngine } from "../src/index.js";
import { RecordingEngine } from "./engines.js";
import { assistant, toolResult, user } from "./fixtures.js";
import { openclawTurn } from "./openclaw-protocol.js";

const long = (i: number) => `fact ${i}: ${"the quick brown fox jumps over the lazy dog ".repeat(20)}`;
const toolTurn = (i: number): OcAgentMessage[] => [
  user(`question ${i} ${long(i)}`, i * 10),
  assistant("", [{ id: `call_${i}`, name: "read", args: { path: `/f${i}` } }], i * 10 + 1),
  toolResult(`call_${i}`, "read", `contents ${i}`, i * 10 + 2),
  assistant(`answer ${i}`, [], i * 10 + 3),
];
const usageTurn = (i: number, prompt: number): OcAgentMessage[] => {
  const turn = toolTurn(i);
  const last = turn[3] as ReturnType<typeof assistant>;
  turn[3] = { ...last, usage: { ...last.usage, input: prompt, cacheRead: 0 } };
  return turn;
};
const config = (window: number) => ({ models: { providers: { loop: { api: "openai-completions", models: [{ id: "m", contextWindow: window, maxTokens: 1024 }] } } } });

function pluginEngine(engine: ContextEngine, window: number, logs: string[] = []): Promise<OpenClawContextEngine> {
  const plugin = defineContextEnginePlugin({ id: "rec", name: "rec", description: "d", engine: () => ({ factory: () => engine }) });
  let made: ((ctx: object) => unknown) | undefined;
  const log = (m: string) => logs.push(m);
  plugin.register({ id: "rec", config: config(window), pluginConfig: {}, logger: { info: log, warn: log, error: log }, registerContextEngine: (_id, f) => (made = f as never) });
  return Promise.resolve(made!({}) as OpenClawContextEngine);
}

describe("the model's window, not OpenClaw's per-call budgets", () => {
  it("updateModel gets the window from OpenClaw's model config; 8.8k and falling step budgets never reach it", async () => {
    const engine = new RecordingEngine();
    const oc = await pluginEngine(engine, 24_000);
    const shape = { sessionId: "w1", window: 24_000, firstBudget: 8_800 };
    let history: OcAgentMessage[] = [];
    for (let i = 0; i < 3; i++) {
      const turn = toolTurn(i);
      await openclawTurn(oc, shape, history, `question ${i}`, turn, `k${i}`);
      history = [...history, ...turn];
    }
    expect(engine.windows).toEqual([24_000]);
    expect(engine.contextLength).toBe(24_000);
    expect(engine.thresholdTokens).toBe(18_000);
  });

  it("without a model config, the window-sized commitTurn budget is the window and assemble budgets are not", async () => {
    const engine = new RecordingEngine();
    const oc = createOpenClawContextEngine({ id: "rec", factory: () => engine });
    await openclawTurn(oc, { sessionId: "w2", window: 24_000, firstBudget: 8_800 }, [], "q", toolTurn(0), "k0");
    expect(engine.windows).toEqual([24_000]);
  });

  it("compacts only when the window requires it: a short conversation is passed through untouched", async () => {
    const engine = new RecordingEngine();
    const oc = await pluginEngine(engine, 24_000);
    const shape = { sessionId: "w3", window: 24_000, firstBudget: 8_800 };
    let history: OcAgentMessage[] = [];
    for (let i = 0; i < 3; i++) {
      // The provider's prompt figure includes OpenClaw's ~9.6k system prompt: 13.6k is far from 24k.
      const turn = usageTurn(i, 13_600);
      const { first } = await openclawTurn(oc, shape, history, `question ${i}`, turn, `k${i}`);
      expect(first.messages).toBe(history);
      history = [...history, ...turn];
    }
    expect(engine.compressCalls).toEqual([]);
  });
});

describe("each assemble fits the budget it is given", () => {
  it("a history over the turn-start budget is compacted to fit, recent turns verbatim", async () => {
    const engine = new RecordingEngine(4);
    const oc = await pluginEngine(engine, 24_000);
    const history = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].flatMap(toolTurn);
    const out = await oc.assemble({ sessionId: "f1", messages: history, tokenBudget: 1_300, model: "m", prompt: "next" });
    expect(engine.compressCalls).toHaveLength(1);
    expect(engine.compressCalls[0]!.options.force).toBe(true);
    expect(out.messages.length).toBeLessThan(history.length);
    expect(out.messages.slice(-4)).toEqual(history.slice(-4));
    expect(out.estimatedTokens).toBeLessThan(toOpenAiMessages(history).messages.length * 200);
  });
});

describe("a degenerate budget is not a budget", () => {
  it("OpenClaw's floor of 1 (its reserve leaves no room on a small window) does not throw the history away", async () => {
    const engine = new RecordingEngine(4);
    const oc = await pluginEngine(engine, 24_000);
    const history = [0, 1, 2].flatMap(toolTurn);
    const out = await oc.assemble({ sessionId: "d1", messages: history, tokenBudget: 1, model: "m", prompt: "next" });
    expect(out.messages).toBe(history);
    expect(engine.compressCalls).toEqual([]);
  });
});

describe("a compaction sticks across OpenClaw's steps and turns", () => {
  it("the next step gets the compacted list back and the next turn does not get the full history", async () => {
    const engine = new RecordingEngine(4);
    const oc = await pluginEngine(engine, 2_000);
    const shape = { sessionId: "c1", window: 2_000, firstBudget: 100_000 };
    let history: OcAgentMessage[] = [0, 1, 2, 3].flatMap((i) => usageTurn(i, 500));
    // Turn 4 reports a prompt over the threshold (1.5k of 2k): the next assemble compacts.
    const t4 = usageTurn(4, 1_900);
    await openclawTurn(oc, shape, history, "q4", t4, "k4");
    history = [...history, ...t4];
    const t5 = toolTurn(5);
    const { first, steps } = await openclawTurn(oc, shape, history, "q5", t5, "k5");
    expect(first.messages.length).toBeLessThan(history.length);
    expect(JSON.stringify(first.messages[0])).toContain("summary of");
    // The step hands the compacted list back: it stays compacted (not the full history again).
    for (const step of steps) expect(step.messages.length).toBeLessThan(history.length + t5.length);
    history = [...history, ...t5];
    const { first: next } = await openclawTurn(oc, shape, history, "q6", toolTurn(6), "k6");
    expect(next.messages.length).toBeLessThan(history.length);
    expect(JSON.stringify(next.messages[0])).toContain("summary of");
    // Recent turns verbatim: the last committed turn comes back as OpenClaw's own objects.
    expect(next.messages.slice(-4)).toEqual(t5);
  });

  it("the real compressor: compacted once, the next turn builds on the compaction, not on the full history", async () => {
    const compressor = new ContextCompressor({ config: { protect_last_n: 4, protect_first_n: 1 } });
    const oc = await pluginEngine(compressor, 4_000);
    const shape = { sessionId: "c2", window: 4_000, firstBudget: 100_000 };
    let history: OcAgentMessage[] = [];
    for (let i = 0; i < 6; i++) {
      const turn = usageTurn(i, i < 5 ? 800 : 3_900);
      await openclawTurn(oc, shape, history, `question ${i}`, turn, `k${i}`);
      history = [...history, ...turn];
    }
    const { first, steps } = await openclawTurn(oc, shape, history, "question 6", toolTurn(6), "k6");
    expect(first.messages.length).toBeLessThan(history.length);
    history = [...history, ...toolTurn(6)];
    for (const step of steps) expect(step.messages.length).toBeLessThan(history.length);
    const { first: next } = await openclawTurn(oc, shape, history, "question 7", toolTurn(7), "k7");
    expect(next.messages.length).toBeLessThan(history.length);
  });
});

describe("compact in a process that has assembled nothing (after a restart)", () => {
  const manual = { force: true, compactionTarget: "threshold" as const, runtimeContext: { forceReason: "manual" } };

  it("a manual compaction compacts the engine's stored state; with nothing stored, a reason OpenClaw treats as a harmless skip", async () => {
    const engine = new RecordingEngine();
    const oc = createOpenClawContextEngine({ id: "rec", factory: () => engine });
    const result = await oc.compact({ sessionId: "r1", sessionKey: "agent:main:r1", tokenBudget: 24_000, ...manual });
    expect(engine.compressCalls).toEqual([{ size: 0, options: expect.objectContaining({ force: true }) }]);
    expect(result.ok).toBe(true);
    expect(result.reason).not.toMatch(/nothing assembled/);
    expect(result.reason).toMatch(/nothing to compact/);
  });

  it("an engine with stored history compacts it and reports the figures", async () => {
    class Stored extends RecordingEngine {
      override compress(messages: Message[]) {
        return messages.length === 0 ? [{ role: "user", content: "summary of the stored history" } as Message] : messages;
      }
    }
    const oc = createOpenClawContextEngine({ id: "st", factory: () => new Stored() });
    const result = await oc.compact({ sessionId: "r2", sessionKey: "agent:main:r2", currentTokenCount: 20_000, ...manual });
    expect(result).toMatchObject({ ok: true, compacted: true, result: { tokensBefore: 20_000 } });
    // A later assemble is not mistaken for an extension of that result.
    const history = [0, 1].flatMap(toolTurn);
    const out = await oc.assemble({ sessionId: "r2", messages: history, tokenBudget: 100_000 });
    expect(out.messages).toBe(history);
  });

  it("OpenClaw's preflight (its reserve asks at a fraction of a small window): compacts only when the model's window requires it", async () => {
    const engine = new RecordingEngine();
    const oc = await pluginEngine(engine, 24_000);
    const preflight = { sessionId: "r3", sessionKey: "agent:main:r3", force: true, tokenBudget: 24_000, compactionTarget: "budget" as const, runtimeContext: { forceReason: "preflight_required" } };
    await oc.bootstrap({ sessionId: "r3", sessionFile: "", runtimeSettings: { model: { provider: "loop", resolved: "m" } } });
    const early = await oc.compact({ ...preflight, currentTokenCount: 10_500 });
    expect(early).toMatchObject({ ok: true, compacted: false });
    expect(early.reason).toMatch(/^below threshold/);
    expect(engine.compressCalls).toEqual([]);
    await oc.assemble({ sessionId: "r3", messages: [0, 1, 2, 3, 4].flatMap(toolTurn), tokenBudget: 100_000 });
    const needed = await oc.compact({ ...preflight, currentTokenCount: 19_000 });
    expect(needed).toMatchObject({ ok: true, compacted: true });
    // The engine compacts to its own target, not everything it can (that is for a user's /compact).
    expect(engine.compressCalls.at(-1)!.options.force).toBe(false);
  });
});

describe("the history a commit hands over is OpenClaw's transcript, not the engine's view", () => {
  // An engine that answers a small budget with a note and the last turn (what LCM does over the room left).
  class NoteEngine extends RecordingEngine {
    ended: Message[][] = [];
    override onSessionEnd(_sessionId: string, messages: readonly Message[]): void {
      this.ended.push([...messages]);
    }
    override selectContext(messages: Message[], options: { budgetTokens?: number } = {}): Message[] | null {
      if ((options.budgetTokens ?? 0) > 10_000 || messages.length <= 4) return null;
      return [{ role: "user", content: "<note>earlier turns are not shown here</note>" }, ...messages.slice(-4)];
    }
  }

  it("OpenClaw's second turn-start assemble (the prompt again, our result back, also reshaped) leaves the commit's history alone", async () => {
    for (const reshape of [false, true]) {
      const engine = new NoteEngine();
      const oc = createOpenClawContextEngine({ id: "rec", factory: () => engine });
      const ids = { sessionId: `v${reshape}`, sessionKey: `agent:main:v${reshape}` };
      const history = [...toolTurn(0), ...toolTurn(1), ...toolTurn(2)];
      const first = await oc.assemble({ ...ids, messages: history, tokenBudget: 3_000, model: "m", prompt: "q3" });
      expect(JSON.stringify(first.messages)).toContain("<note>");
      // OpenClaw then calls again with nearly the whole window and the already-reduced list (seen reshaped in a real run).
      const reduced = reshape ? [...first.messages, ...first.messages.slice(-4)] : first.messages;
      await oc.assemble({ ...ids, messages: reduced, tokenBudget: 21_648, model: "m", prompt: "q3" });
      const turn = toolTurn(3);
      await oc.commitTurn({ ...ids, advancementKey: "k3", messages: turn, runtimeContext: { tokenBudget: 24_000 } });
      expect(engine.turns).toHaveLength(1);
      expect(JSON.stringify(engine.turns[0]!.messages)).not.toContain("<note>");
      expect(engine.turns[0]!.messages).toEqual(toOpenAiMessages([...history, ...turn]).messages);
      // Gateway mode: dispose after the turn ends the session with that same transcript, not the view.
      await oc.dispose();
      expect(engine.ended).toEqual([toOpenAiMessages([...history, ...turn]).messages]);
    }
  });
});

describe("commitTurn hands over the turn's identity", () => {
  it("OpenClaw's key as turnId, the converted turn as turnMessages at the end of the transcript; a re-delivered key is a no-op", async () => {
    const engine = new RecordingEngine();
    const oc = createOpenClawContextEngine({ id: "rec", factory: () => engine });
    const history = toolTurn(0);
    const turn = toolTurn(1);
    await openclawTurn(oc, { sessionId: "t1", window: 24_000, firstBudget: 8_800 }, history, "q1", turn, "adv-1");
    expect(engine.turns).toHaveLength(1);
    const { messages, meta } = engine.turns[0]!;
    expect(meta.turnId).toBe("adv-1");
    expect(meta.turnMessages).toEqual(toOpenAiMessages(turn).messages);
    expect(messages).toEqual(toOpenAiMessages([...history, ...turn]).messages);
    expect(await oc.commitTurn({ sessionId: "t1", advancementKey: "adv-1", messages: turn })).toEqual({ status: "duplicate" });
    expect(engine.turns).toHaveLength(1);
  });

  it("a crash-recovered turn hands over the user's own queued text, not only the recovery prompt", async () => {
    const engine = new RecordingEngine();
    const oc = createOpenClawContextEngine({ id: "rec", factory: () => engine });
    const recovery = "[System] Your previous turn was interrupted by a gateway restart. Continue.";
    const prompt = `[Queued user message from a previous active turn; preserved as context only. Continue with the active prompt below.]\nplease remember the code word PELICAN-42\n\n${recovery}`;
    await oc.assemble({ sessionId: "t2", messages: toolTurn(0), tokenBudget: 8_800, prompt });
    await oc.commitTurn({ sessionId: "t2", advancementKey: "rec-1", messages: [user(recovery, 50), assistant("noted", [], 51)] });
    const turnMessages = engine.turns[0]!.meta.turnMessages!;
    // As OpenClaw shows the turn afterwards: the user's message and the recovery prompt merged into one user message.
    expect(turnMessages.map((m) => m.content)).toEqual([
      [
        { type: "text", text: "please remember the code word PELICAN-42" },
        { type: "text", text: recovery },
      ],
      "noted",
    ]);
  });

  it("OpenClaw's memory-flush and other internal runs never reach the engine", async () => {
    let built = 0;
    const oc = createOpenClawContextEngine({ id: "rec", factory: () => (built++, new RecordingEngine()) });
    for (const [sessionId, sessionKey] of [
      ["internal-session-effects-run_1-0123456789abcdef", "agent:main:internal-session-effects:run_1-0123456789abcdef"],
      ["plain-id", "agent:main:internal-session-effects:run_2-0123456789abcdef"],
    ] as const) {
      const messages = toolTurn(0);
      expect((await oc.assemble({ sessionId, sessionKey, messages, tokenBudget: 10 })).messages).toBe(messages);
      expect(await oc.commitTurn({ sessionId, sessionKey, advancementKey: "x", messages })).toEqual({ status: "committed" });
      expect((await oc.compact({ sessionId, sessionKey, force: true })).ok).toBe(true);
    }
    expect(built).toBe(0);
  });
});

describe("OpenClaw's memory flush (its own run over the session's whole transcript)", () => {
  it("gets the newest whole turns that fit the budget it gives, without reaching the engine", async () => {
    let built = 0;
    const oc = createOpenClawContextEngine({ id: "rec", factory: () => (built++, new RecordingEngine()) });
    const transcript: OcAgentMessage[] = [];
    for (let i = 0; i < 12; i++) transcript.push(...toolTurn(i));
    const sessionId = "internal-session-effects-memory_flush-0123456789abcdef";
    const budget = 2_500;
    const result = await oc.assemble({ sessionId, sessionKey: `agent:main:internal-session-effects:memory_flush-0123456789abcdef`, messages: transcript, tokenBudget: budget });
    const kept = toOpenAiMessages(result.messages).messages;
    expect(defaultTokenCounter.countMessages(kept)).toBeLessThanOrEqual(budget);
    expect(result.messages[0]!.role).toBe("user");
    expect(result.messages.at(-1)).toBe(transcript.at(-1));
    expect(result.messages.length).toBeLessThan(transcript.length);
    // Tool calls keep their results: every result's call is in the list.
    const calls = new Set(kept.flatMap((m) => (m.role === "assistant" ? (m.tool_calls ?? []).map((c) => c.id) : [])));
    for (const m of kept) if (m.role === "tool") expect(calls.has(m.tool_call_id)).toBe(true);
    expect(built).toBe(0);
  });
});

describe("the plugin's logger", () => {
  it("forwards an error's cause, not only its message", async () => {
    class Failing extends RecordingEngine {
      override onTurnComplete(): void {
        throw new Error("could not store the turn", { cause: new Error("connect ECONNREFUSED 127.0.0.1:5432") });
      }
    }
    const logs: string[] = [];
    const oc = await pluginEngine(new Failing(), 24_000, logs);
    await oc.commitTurn({ sessionId: "l1", advancementKey: "k", messages: toolTurn(0) });
    expect(logs.join("\n")).toContain("ECONNREFUSED 127.0.0.1:5432");
  });
});
