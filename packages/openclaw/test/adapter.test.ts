import { checkConversation } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { createOpenClawContextEngine, toOpenAiMessages } from "../src/index.js";
import type { OcAgentMessage } from "../src/index.js";
import { BadEngine, NoopEngine, TailEngine } from "./engines.js";
import { transcript, user } from "./fixtures.js";

const base = { sessionId: "s1", sessionKey: "agent:main:s1" };

describe("createOpenClawContextEngine", () => {
  it("declares the durable-turn contract OpenClaw requires", () => {
    const oc = createOpenClawContextEngine({ id: "noop", factory: () => new NoopEngine() });
    expect(oc.info.transcriptSemantics).toEqual({ currentTurnFence: "before-current-turn-entry-v1", turnAdvancementIdempotency: "atomic-idempotent-v1" });
    expect(typeof oc.commitTurn).toBe("function");
  });

  it("a no-op engine hands OpenClaw its own message list back", async () => {
    const oc = createOpenClawContextEngine({ id: "noop", factory: () => new NoopEngine() });
    const messages = transcript(3);
    const out = await oc.assemble({ ...base, messages, tokenBudget: 100_000 });
    expect(out.messages).toBe(messages);
    expect(out.estimatedTokens).toBeGreaterThan(0);
  });

  it("the model sees exactly the engine's compacted list; kept messages are the originals", async () => {
    const engine = new TailEngine(4);
    const oc = createOpenClawContextEngine({ id: "tail", factory: () => engine });
    const messages = transcript(4);
    const out = await oc.assemble({ ...base, messages, tokenBudget: 100_000 });
    const decided = engine.compress(toOpenAiMessages(messages).messages);
    expect(out.systemPromptAddition).toBe(decided[0]!.content);
    expect(toOpenAiMessages(out.messages).messages).toEqual(decided.slice(1));
    // Kept messages are the very originals (signatures, usage, timestamps intact).
    expect(out.messages[0]).toBe(messages[12]);
    expect(out.messages.at(-1)).toBe(messages.at(-1));
  });

  it("keeps the compacted view for later turns and appends only new host messages", async () => {
    const engine = new TailEngine(4);
    const oc = createOpenClawContextEngine({ id: "tail", factory: () => engine });
    const first = transcript(4);
    await oc.assemble({ ...base, messages: first });
    engine.always = false;
    const second = [...first, user("next question", 99)];
    const out = await oc.assemble({ ...base, messages: second });
    expect(out.messages.at(-1)).toBe(second.at(-1));
    expect(out.messages.length).toBeLessThan(second.length);
  });

  it("commitTurn is idempotent per advancement key, also under concurrency", async () => {
    const engine = new TailEngine(4, false);
    const oc = createOpenClawContextEngine({ id: "tail", factory: () => engine });
    const turn = transcript(1);
    const params = { ...base, advancementKey: "turn-1", messages: turn, admission: {}, terminal: {} };
    const [a, b] = await Promise.all([oc.commitTurn(params), oc.commitTurn(params)]);
    expect([a.status, b.status].sort()).toEqual(["committed", "duplicate"]);
    expect((await oc.commitTurn(params)).status).toBe("duplicate");
    expect(engine.turns).toHaveLength(1);
    expect(engine.usages[0]).toMatchObject({ prompt_tokens: 13, completion_tokens: 5, cache_read_tokens: 3 });
    // A durable host also finalizes through afterTurn: the turn is not observed twice.
    await oc.afterTurn({ ...base, sessionFile: "", messages: turn, prePromptMessageCount: 0 });
    expect(engine.turns).toHaveLength(1);
  });

  it("compact runs the engine on the last assembled list with the host's instructions", async () => {
    const engine = new TailEngine(4, false);
    const oc = createOpenClawContextEngine({ id: "tail", factory: () => engine });
    expect((await oc.compact({ ...base })).compacted).toBe(false);
    const messages = transcript(4);
    await oc.assemble({ ...base, messages });
    const result = await oc.compact({ ...base, customInstructions: "keep file paths" });
    expect(result).toMatchObject({ ok: true, compacted: true });
    expect(result.result!.tokensAfter).toBeLessThan(result.result!.tokensBefore);
    expect(engine.compressCalls.at(-1)).toMatchObject({ force: true, focusTopic: "keep file paths" });
    const out = await oc.assemble({ ...base, messages });
    expect(out.messages.length).toBeLessThan(messages.length);
  });

  it.each(["throw", "hang", "garbage", "orphan"] as const)("a %s engine never breaks the loop: unmodified messages", async (mode) => {
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, warn: (m: string) => warnings.push(m), error() {} };
    const oc = createOpenClawContextEngine({ id: "bad", factory: () => new BadEngine(mode), stepTimeoutMs: 50, compactTimeoutMs: 50, logger });
    const messages: OcAgentMessage[] = transcript(3);
    const out = await oc.assemble({ ...base, messages });
    expect(out.messages).toBe(messages);
    expect(checkConversation(toOpenAiMessages(out.messages).messages)).toEqual([]);
    await expect(oc.commitTurn({ ...base, advancementKey: "k", messages, admission: {}, terminal: {} })).resolves.toEqual({ status: "committed" });
    const compacted = await oc.compact({ ...base });
    expect(compacted.compacted).toBe(false);
    expect(warnings.length).toBeGreaterThan(0);
    await oc.dispose();
  });

  it("one engine per session", async () => {
    const made: TailEngine[] = [];
    const oc = createOpenClawContextEngine({ id: "tail", factory: () => (made.push(new TailEngine(4, false)), made.at(-1)!) });
    await oc.bootstrap({ sessionId: "a", sessionFile: "" });
    await oc.bootstrap({ sessionId: "b", sessionFile: "" });
    await oc.assemble({ sessionId: "a", messages: transcript(1) });
    expect(made).toHaveLength(2);
  });
});
