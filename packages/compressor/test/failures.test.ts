import type { ChatModel, ChatModelErrorKind } from "@context-engine/core";
import { ChatModelError, contentText } from "@context-engine/core";
import { createFakeChatModel } from "@context-engine/contract-tests/fixtures";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ContextCompressor, EXTRACTIVE_TAG, isSummaryMessage } from "../src/index.js";
import { agentConversation, expectValid, failingModel, fakeSummariser } from "./helpers.js";

const conversation = () => agentConversation({ turns: 12 });

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date("2026-01-01T00:00:00Z"));
});
afterEach(() => vi.useRealTimers());

describe("summary failures", () => {
  it.each(["auth", "quota", "network", "overloaded", "empty", "truncated"] as ChatModelErrorKind[])(
    "%s aborts with the transcript unchanged and starts a cooldown",
    async (kind) => {
      const engine = new ContextCompressor({ contextLength: 16_000, chatModel: failingModel(kind) });
      const messages = conversation();
      expect(await engine.compress(messages)).toBe(messages);
      expect(engine.compressionCount).toBe(0);
      const status = engine.getStatus();
      expect(status.cooldownSeconds).toBeGreaterThan(0);
      expect(status.lastSummaryError).toContain(kind);
      expect(engine.shouldCompressInfo(engine.thresholdTokens + 1)).toEqual({ compress: false, reason: expect.stringMatching(/^cooldown:\d+$/) });
    },
  );

  it.each(["rate_limit", "timeout", "bad_request", "context_length", "refusal", "unknown", "plain"] as const)(
    "%s falls back to the deterministic summary",
    async (kind) => {
      const engine = new ContextCompressor({ contextLength: 16_000, chatModel: failingModel(kind) });
      const out = await engine.compress(conversation());
      expectValid(out);
      const summary = contentText(out.find(isSummaryMessage)!.content);
      expect(summary).toContain(EXTRACTIVE_TAG);
      expect(summary).toContain("summariser failed");
      expect(engine.getStatus().lastCompaction?.mode).toBe("fallback");
    },
  );

  it("abort_on_summary_failure turns fallbacks into aborts", async () => {
    const engine = new ContextCompressor({ contextLength: 16_000, chatModel: failingModel("timeout"), config: { abort_on_summary_failure: true } });
    const messages = conversation();
    expect(await engine.compress(messages)).toBe(messages);
  });

  it("treats empty, length-truncated and refusal answers as failures", async () => {
    const answers: Array<[ChatModel["complete"], "abort" | "fallback"]> = [
      [async () => ({ message: { role: "assistant", content: "   " }, finishReason: "stop" }), "abort"],
      [async () => ({ message: { role: "assistant", content: "## Goal\npartial" }, finishReason: "length" }), "abort"],
      [async () => ({ message: { role: "assistant", content: null } }), "abort"],
      [async () => ({ nonsense: true }) as never, "abort"],
      [async () => ({ message: { role: "assistant", content: "I'm sorry, but I can't summarize this conversation." }, finishReason: "stop" }), "fallback"],
      [async () => ({ message: { role: "assistant", content: "x", refusal: "no" }, finishReason: "stop" }), "fallback"],
    ];
    for (const [complete, expected] of answers) {
      const engine = new ContextCompressor({ contextLength: 16_000, chatModel: { complete } });
      const messages = conversation();
      const out = await engine.compress(messages);
      if (expected === "abort") expect(out).toBe(messages);
      else expect(contentText(out.find(isSummaryMessage)!.content)).toContain(EXTRACTIVE_TAG);
    }
  });

  it("climbs the cooldown ladder and never calls a cooling summariser unless forced", async () => {
    const model = failingModel("timeout");
    const engine = new ContextCompressor({ contextLength: 16_000, chatModel: model });
    await engine.compress(conversation());
    expect(engine.getStatus().cooldownSeconds).toBe(60);
    // While cooling down, automatic compaction does not call the model: deterministic summary instead.
    const out = await engine.compress(conversation());
    expect(model.requests).toHaveLength(1);
    expect(contentText(out.find(isSummaryMessage)!.content)).toContain("cooling down");
    // force bypasses the cooldown; each failure in a row lengthens it.
    await engine.compress(conversation(), { force: true });
    expect(model.requests).toHaveLength(2);
    expect(engine.getStatus().cooldownSeconds).toBe(300);
    await engine.compress(conversation(), { force: true });
    expect(engine.getStatus().cooldownSeconds).toBe(900);
    vi.setSystemTime(Date.now() + 901_000);
    expect(engine.getStatus().cooldownSeconds).toBe(0);
  });

  it("a terminal failure keeps aborting during its cooldown, and a success clears it", async () => {
    let fail = true;
    const calls: number[] = [];
    const engine = new ContextCompressor({
      contextLength: 16_000,
      chatModel: {
        async complete() {
          calls.push(1);
          if (fail) throw Object.assign(new Error("401 invalid api key"), { status: 401 });
          // A heading over "None" alone is an empty answer; a summary says something.
          return { message: { role: "assistant", content: "## Latest Request\nNone\n## Progress\nThe work goes on." }, finishReason: "stop" };
        },
      },
    });
    const messages = conversation();
    expect(await engine.compress(messages)).toBe(messages);
    expect(await engine.compress(messages)).toBe(messages);
    expect(calls).toHaveLength(1);
    fail = false;
    const out = await engine.compress(messages, { force: true });
    expect(out).not.toBe(messages);
    expect(engine.getStatus()).toMatchObject({ cooldownSeconds: 0, lastSummaryError: null });
  });

  it("the anti-thrash breaker stops compaction that does not help, and recovers with one probe", async () => {
    const engine = new ContextCompressor({ contextLength: 16_000, chatModel: fakeSummariser() });
    const over = engine.thresholdTokens + 100;
    for (let i = 0; i < 2; i++) {
      expect(engine.shouldCompress(over)).toBe(true);
      await engine.compress(conversation());
      // The provider still reports a prompt over the threshold: a strike.
      engine.updateFromResponse({ prompt_tokens: over, completion_tokens: 10, total_tokens: over + 10 });
    }
    expect(engine.shouldCompressInfo(over)).toEqual({ compress: false, reason: "ineffective" });
    expect(engine.shouldCompressPreflight(agentConversation({ turns: 10 }))).toBe(false);
    // Near the window the guards yield: a compaction beats an overflow.
    expect(engine.shouldCompress(Math.floor(engine.contextLength * 0.95))).toBe(true);
    vi.setSystemTime(Date.now() + 301_000);
    expect(engine.shouldCompress(over)).toBe(true);
    // One more bad compaction trips it again at once.
    await engine.compress(conversation());
    engine.updateFromResponse({ prompt_tokens: over, completion_tokens: 10, total_tokens: over + 10 });
    expect(engine.shouldCompressInfo(over).reason).toBe("ineffective");
    // Manual compaction is never blocked by the breaker.
    const messages = conversation();
    expect(await engine.compress(messages, { force: true })).not.toBe(messages);
  });

  it("a good compaction clears strikes", async () => {
    const engine = new ContextCompressor({ contextLength: 16_000, chatModel: fakeSummariser() });
    await engine.compress(conversation());
    engine.updateFromResponse({ prompt_tokens: engine.thresholdTokens + 1, completion_tokens: 1, total_tokens: 0 });
    await engine.compress(conversation());
    engine.updateFromResponse({ prompt_tokens: 100, completion_tokens: 1, total_tokens: 101 });
    expect(engine.getStatus().strikes).toBe(0);
    expect(engine.shouldCompress(engine.thresholdTokens)).toBe(true);
  });

  it("two fallback summaries in a row trip the breaker", async () => {
    const engine = new ContextCompressor({ contextLength: 16_000, chatModel: failingModel("bad_request") });
    await engine.compress(conversation());
    await engine.compress(conversation(), { force: true });
    vi.setSystemTime(Date.now() + 3_600_000); // past every cooldown
    expect(engine.shouldCompressInfo(engine.thresholdTokens).reason).toBe("ineffective");
  });

  it("a model switch clears the failed route's cooldown", async () => {
    const engine = new ContextCompressor({ contextLength: 16_000, model: "a", chatModel: failingModel("overloaded") });
    await engine.compress(conversation());
    expect(engine.getStatus().cooldownSeconds).toBeGreaterThan(0);
    engine.updateModel("b", 16_000);
    expect(engine.getStatus().cooldownSeconds).toBe(0);
    expect(engine.lastPromptTokens).toBe(0);
  });
});

describe("abort signal", () => {
  it("rejects promptly and publishes nothing when aborted mid-summary", async () => {
    vi.useRealTimers();
    // A model that ignores the signal entirely.
    const engine = new ContextCompressor({
      contextLength: 16_000,
      chatModel: { complete: () => new Promise(() => {}) },
    });
    const controller = new AbortController();
    const pending = engine.compress(conversation(), { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("host timeout")), 20);
    await expect(pending).rejects.toThrow("host timeout");
    expect(engine.compressionCount).toBe(0);
    expect(engine.getStatus()).toMatchObject({ hasPreviousSummary: false, cooldownSeconds: 0, lastSummaryError: null });
  });

  it("an abort during the summariser call leaves the transcript and every guard as they were", async () => {
    vi.useRealTimers();
    // The first call waits (honouring its signal, like a real client); later calls answer.
    const slow = createFakeChatModel({ mode: "slow", delayMs: 60_000 });
    const quick = createFakeChatModel();
    let calls = 0;
    const engine = new ContextCompressor({ contextLength: 16_000, chatModel: { complete: (r) => (++calls === 1 ? slow : quick).complete(r) } });
    const messages = conversation();
    const snapshot = structuredClone(messages);
    const controller = new AbortController();
    const pending = engine.compress(messages, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("host timeout")), 20);
    await expect(pending).rejects.toThrow("host timeout");
    expect(slow.calls[0]!.signal?.aborted).toBe(true); // the signal reached the model
    expect(messages).toEqual(snapshot);
    expect(engine.compressionCount).toBe(0);
    expect(engine.getStatus()).toMatchObject({ hasPreviousSummary: false, cooldownSeconds: 0, lastSummaryError: null, strikes: 0, fallbackStreak: 0, lastCompaction: null });
    // No failure was recorded: the next pass calls the model at once.
    const out = await engine.compress(messages);
    expect(quick.calls).toHaveLength(1);
    expect(engine.getStatus().lastCompaction?.mode).toBe("model");
    expectValid(out);
  });

  it("an abort during the retry on the main model publishes nothing either", async () => {
    vi.useRealTimers();
    const controller = new AbortController();
    const engine = new ContextCompressor({
      contextLength: 16_000,
      model: "main",
      config: { summary_model: "small" },
      chatModel: {
        async complete(req) {
          if (req.model === "small") throw new ChatModelError("bad_request", "model not found");
          setTimeout(() => controller.abort(new Error("host timeout")), 5);
          return new Promise(() => {});
        },
      },
    });
    const messages = conversation();
    await expect(engine.compress(messages, { signal: controller.signal })).rejects.toThrow("host timeout");
    expect(engine.compressionCount).toBe(0);
    expect(engine.getStatus()).toMatchObject({ cooldownSeconds: 0, lastSummaryError: null, lastCompaction: null });
  });

  it("rejects at once when the signal is already aborted", async () => {
    const model = fakeSummariser();
    const engine = new ContextCompressor({ contextLength: 16_000, chatModel: model });
    await expect(engine.compress(conversation(), { signal: AbortSignal.abort() })).rejects.toBeDefined();
    expect(model.requests).toHaveLength(0);
  });
});

describe("triggers", () => {
  it("shouldCompressPreflight estimates the messages against the threshold", () => {
    const engine = new ContextCompressor({ contextLength: 16_000 });
    const big = conversation();
    expect(engine.tokenCounter.countMessages(big)).toBeGreaterThan(engine.thresholdTokens);
    expect(engine.shouldCompressPreflight(big)).toBe(true);
    expect(engine.shouldCompressPreflight(big.slice(0, 6))).toBe(false);
    expect(new ContextCompressor({ contextLength: 16_000, config: { enabled: false } }).shouldCompressPreflight(big)).toBe(false);
    expect(new ContextCompressor().shouldCompressPreflight(big)).toBe(false); // window unknown
  });

  it("treats the host's -1 (just compacted, wait for real usage) as no pressure", () => {
    const engine = new ContextCompressor({ contextLength: 16_000 });
    engine.lastPromptTokens = -1;
    expect(engine.shouldCompress()).toBe(false);
    expect(engine.getStatus().lastPromptTokens).toBe(0);
    engine.updateFromResponse({ prompt_tokens: 13_000, completion_tokens: 5, total_tokens: 13_005 });
    expect(engine.shouldCompress()).toBe(true);
  });
});

describe("sessions", () => {
  it("keeps previous summaries and cooldowns per session", async () => {
    const failingA = { fail: true };
    const prompts: Array<{ session: string; prompt: string }> = [];
    let current = "";
    const engine = new ContextCompressor({
      contextLength: 16_000,
      chatModel: {
        async complete(req) {
          prompts.push({ session: current, prompt: contentText(req.messages[0]!.content) });
          if (current === "A" && failingA.fail) {
            const { ChatModelError } = await import("@context-engine/core");
            throw new ChatModelError("overloaded", "busy");
          }
          // A plain-word marker: a constant the sources never name would be an invented identifier.
          return { message: { role: "assistant", content: `## Latest Request\nNone\n## Goal\nsession ${current} goal goalmarker${current.toLowerCase()}` }, finishReason: "stop" };
        },
      },
    });
    current = "B";
    const b1 = await engine.compress(conversation(), { sessionId: "B" });
    current = "A";
    const a = conversation();
    expect(await engine.compress(a, { sessionId: "A" })).toBe(a); // A fails: cooldown for A only
    current = "B";
    const b2 = await engine.compress([...b1, ...agentConversation({ turns: 8 }).slice(1)], { sessionId: "B" });
    expect(b2).not.toBe(b1);
    const last = prompts.at(-1)!;
    expect(last.session).toBe("B");
    expect(last.prompt).toContain("goalmarkerb");
    expect(last.prompt).not.toContain("goalmarkera");
    // A is still cooling down, B is not.
    current = "A";
    const again = conversation();
    expect(await engine.compress(again, { sessionId: "A" })).toBe(again);
    expect(prompts.filter((p) => p.session === "A")).toHaveLength(1);
  });

  it("reset clears the active session; a compaction boundary carries guards over", async () => {
    const engine = new ContextCompressor({ contextLength: 16_000, chatModel: failingModel("network") });
    engine.onSessionStart("s1");
    await engine.compress(conversation(), { sessionId: "s1" });
    expect(engine.getStatus().cooldownSeconds).toBeGreaterThan(0);
    engine.onSessionEnd("s1", []);
    engine.onSessionStart("s1", { boundaryReason: "compression", oldSessionId: "s1" });
    expect(engine.getStatus().cooldownSeconds).toBeGreaterThan(0);
    engine.onSessionReset();
    expect(engine.getStatus().cooldownSeconds).toBe(0);
    expect(engine.compressionCount).toBe(0);
  });
});

describe("session association", () => {
  it("a compress call without sessionId belongs to the session last started", async () => {
    const engine = new ContextCompressor({ contextLength: 16_000, chatModel: failingModel("network") });
    engine.onSessionStart("live");
    await engine.compress(conversation());
    expect(engine.getStatus()).toMatchObject({ sessionId: "live" });
    expect(engine.getStatus().cooldownSeconds).toBeGreaterThan(0);
    engine.onSessionStart("other");
    expect(engine.getStatus().cooldownSeconds).toBe(0);
  });
});

describe("summariser deadline", () => {
  it("a summariser slower than 80% of context_timeout_seconds ends as a timeout and the deterministic summary is used", async () => {
    vi.useRealTimers();
    const engine = new ContextCompressor({
      contextLength: 16_000,
      config: { context_timeout_seconds: 0.05 },
      chatModel: { complete: () => new Promise(() => {}) }, // never answers, ignores signals
    });
    const out = await engine.compress(conversation());
    expectValid(out);
    expect(contentText(out.find(isSummaryMessage)!.content)).toContain(EXTRACTIVE_TAG);
    expect(engine.getStatus().lastSummaryError).toMatch(/^timeout: /);
  });

  it("unwraps an answer fenced as a markdown block", async () => {
    const engine = new ContextCompressor({
      contextLength: 16_000,
      chatModel: { complete: async () => ({ message: { role: "assistant", content: "```markdown\n## Latest Request\nNone\n## Goal\nFENCED_GOAL\n```" }, finishReason: "stop" }) },
    });
    const out = await engine.compress(conversation());
    const text = contentText(out.find(isSummaryMessage)!.content);
    expect(text).toContain("FENCED_GOAL");
    expect(text).not.toContain("```");
  });
});
