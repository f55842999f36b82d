// Hermes Agent's tests/agent/test_context_engine.py, translated to our API (behaviour, not code).
// Differences from the original, by design of our contract:
// - "cannot instantiate the ABC" and "a subclass missing methods raises" are TypeScript compile-time
//   errors here (abstract class / abstract members); checked with @ts-expect-error below.
// - the plugin-slot, deep-copy and agent-init tests belong to the loader and the host (one engine per
//   session from a factory); they are translated in packages/plugin-loader and packages/host where
//   they exist, not here.
import { describe, expect, it } from "vitest";
import { ContextEngine, isContextEngine, overridesHook, type Message, type ToolSchema, type Usage } from "../src/index.js";

/** The original's StubEngine: threshold 20 % of the window, compress counts and returns its input. */
class StubEngine extends ContextEngine {
  compressed = false;
  readonly toolCalls: string[] = [];
  constructor(contextLength = 200_000) {
    super();
    this.updateModel("stub-model", contextLength);
  }
  get name() {
    return "stub";
  }
  override updateModel(_model: string, contextLength: number) {
    this.contextLength = contextLength;
    this.thresholdTokens = Math.floor(contextLength * 0.2);
  }
  updateFromResponse(usage: Usage) {
    this.lastPromptTokens = usage.prompt_tokens;
    this.lastCompletionTokens = usage.completion_tokens;
    this.lastTotalTokens = usage.total_tokens;
  }
  shouldCompress(promptTokens?: number) {
    return (promptTokens ?? this.lastPromptTokens) >= this.thresholdTokens;
  }
  compress(messages: Message[]) {
    this.compressed = true;
    this.compressionCount++;
    return messages;
  }
  override getToolSchemas(): ToolSchema[] {
    return [{ name: "stub_search", description: "Search", parameters: { type: "object", properties: {} } }];
  }
  override handleToolCall(name: string, _args?: unknown) {
    this.toolCalls.push(name);
    return JSON.stringify({ ok: true, tool: name });
  }
}

/** Only the abstract members: every optional part is the base default. */
class MinimalEngine extends ContextEngine {
  get name() {
    return "minimal";
  }
  updateFromResponse() {}
  shouldCompress() {
    return false;
  }
  compress(messages: Message[]) {
    return messages;
  }
}

describe("the ContextEngine base class (Hermes test_context_engine.py)", () => {
  it("is abstract: only a subclass with every required member can be constructed", () => {
    // A compile-time rule in TypeScript (JavaScript has no runtime refusal): the line below must not type-check.
    // @ts-expect-error an abstract class cannot be instantiated
    const construct = () => new ContextEngine();
    expect(construct).toBeTypeOf("function");
    // @ts-expect-error a subclass that leaves members abstract does not compile
    class OnlyName extends ContextEngine {
      get name() {
        return "x";
      }
    }
    expect(OnlyName).toBeTypeOf("function");
  });

  it("a complete subclass is a ContextEngine with its name", () => {
    const e = new StubEngine();
    expect(e).toBeInstanceOf(ContextEngine);
    expect(isContextEngine(e)).toBe(true);
    expect(e.name).toBe("stub");
  });

  describe("defaults", () => {
    it("has no tools, and an unknown tool call answers a JSON error", async () => {
      const e = new MinimalEngine();
      expect(e.getToolSchemas()).toEqual([]);
      const answer = JSON.parse(await e.handleToolCall("anything", {}));
      expect(answer).toHaveProperty("error");
    });

    it("getStatus reports the figures and a usage percent in (0, 100]", () => {
      const e = new StubEngine();
      e.lastPromptTokens = 50_000;
      e.thresholdTokens = 100_000;
      const status = e.getStatus();
      expect(status.lastPromptTokens).toBe(50_000);
      expect(status.contextLength).toBe(200_000);
      expect(status.thresholdTokens).toBe(100_000);
      expect(status.usagePercent).toBeGreaterThan(0);
      expect(status.usagePercent).toBeLessThanOrEqual(100);
    });

    it("getStatus clamps the post-compaction sentinel -1 to 0", () => {
      const e = new StubEngine();
      e.lastPromptTokens = -1;
      const status = e.getStatus();
      expect(status.lastPromptTokens).toBe(0);
      expect(status.usagePercent).toBeGreaterThanOrEqual(0);
    });

    it("onSessionReset zeroes the counters", async () => {
      const e = new StubEngine();
      e.lastPromptTokens = 999;
      e.compressionCount = 3;
      await e.onSessionReset();
      expect(e.lastPromptTokens).toBe(0);
      expect(e.compressionCount).toBe(0);
    });

    it("shouldCompressPreflight is false", async () => {
      expect(await new MinimalEngine().shouldCompressPreflight([])).toBe(false);
    });

    it("the optional hooks are the base no-ops, which hosts detect by identity", async () => {
      const e = new MinimalEngine();
      expect(await e.selectContext([{ role: "user", content: "hi" }], { budgetTokens: 0 })).toBeNull();
      expect(await e.onTurnComplete([], null, {})).toBeUndefined();
      expect(overridesHook(e, "selectContext")).toBe(false);
      expect(overridesHook(e, "onTurnComplete")).toBe(false);
    });
  });

  describe("the stub engine", () => {
    it("shouldCompress at 50 % of a 100k window: 40k no, 50k and 60k yes", () => {
      const e = new StubEngine(100_000);
      e.thresholdTokens = 50_000;
      expect(e.shouldCompress(40_000)).toBe(false);
      expect(e.shouldCompress(50_000)).toBe(true);
      expect(e.shouldCompress(60_000)).toBe(true);
    });

    it("compress returns its input and counts the pass", async () => {
      const e = new StubEngine();
      const msgs: Message[] = [{ role: "user", content: "hello" }];
      expect(await e.compress(msgs)).toBe(msgs);
      expect(e.compressed).toBe(true);
      expect(e.compressionCount).toBe(1);
    });

    it("declares one tool and records its calls", async () => {
      const e = new StubEngine();
      expect(e.getToolSchemas().map((s) => s.name)).toEqual(["stub_search"]);
      expect(JSON.parse(await e.handleToolCall("stub_search", {}))).toEqual({ ok: true, tool: "stub_search" });
      expect(e.toolCalls).toEqual(["stub_search"]);
    });

    it("updateFromResponse copies the three counts", () => {
      const e = new StubEngine();
      e.updateFromResponse({ prompt_tokens: 100, completion_tokens: 50, total_tokens: 150 });
      expect([e.lastPromptTokens, e.lastCompletionTokens, e.lastTotalTokens]).toEqual([100, 50, 150]);
    });
  });
});
