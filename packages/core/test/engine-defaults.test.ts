import { describe, expect, it } from "vitest";
import { ContextEngine, type Message } from "../src/index.js";
import { MinimalEngine } from "./helpers.js";

describe("ContextEngine defaults", () => {
  it("starts with the documented field values", () => {
    const e = new MinimalEngine();
    expect(e).toBeInstanceOf(ContextEngine);
    expect(e.name).toBe("minimal");
    expect([e.lastPromptTokens, e.lastCompletionTokens, e.lastTotalTokens]).toEqual([0, 0, 0]);
    expect([e.thresholdTokens, e.contextLength, e.compressionCount]).toEqual([0, 0, 0]);
    expect(e.thresholdPercent).toBe(0.75);
    expect(e.protectFirstN).toBe(3);
    expect(e.protectLastN).toBe(6);
    expect(e.modelThresholds).toEqual({});
  });

  it("has no tools and answers unknown tool calls with a JSON error", async () => {
    const e = new MinimalEngine();
    expect(e.getToolSchemas()).toEqual([]);
    const out = await e.handleToolCall("lcm_grep", { query: "x" });
    expect(JSON.parse(out)).toEqual({ error: "Unknown context engine tool: lcm_grep" });
  });

  it("defaults the optional checks", async () => {
    const e = new MinimalEngine();
    expect(await e.shouldCompressPreflight([])).toBe(false);
    expect(e.hasContentToCompress([])).toBe(true);
    const msgs: Message[] = [{ role: "user", content: "hi" }];
    const pruned = await e.pruneToolResultsOnly(msgs);
    expect(pruned.messages).toBe(msgs);
    expect(pruned.pruned).toBe(0);
    expect(await e.selectContext(msgs, { budgetTokens: 10 })).toBeNull();
    expect(await e.onTurnComplete(msgs, null, { turnId: "t1" })).toBeUndefined();
    await expect(e.onSessionStart("s1", { platform: "cli" })).toBeUndefined();
    await expect(e.onSessionEnd("s1", msgs)).toBeUndefined();
  });

  it("shouldCompressInfo wraps shouldCompress with no reason", () => {
    const e = new MinimalEngine();
    e.updateModel("m", 1000);
    expect(e.shouldCompressInfo(800)).toEqual({ compress: true, reason: null });
    expect(e.shouldCompressInfo(100)).toEqual({ compress: false, reason: null });
  });

  it("onSessionReset zeroes the counters (0, never -1)", async () => {
    const e = new MinimalEngine();
    e.lastPromptTokens = -1;
    e.lastCompletionTokens = 5;
    e.lastTotalTokens = 7;
    e.compressionCount = 3;
    await e.onSessionReset();
    expect([e.lastPromptTokens, e.lastCompletionTokens, e.lastTotalTokens, e.compressionCount]).toEqual([0, 0, 0, 0]);
  });

  it("getStatus reports the standard fields and clamps the -1 sentinel", () => {
    const e = new MinimalEngine();
    e.updateModel("m", 200_000);
    e.lastPromptTokens = 50_000;
    const s = e.getStatus();
    expect(s).toMatchObject({ name: "minimal", lastPromptTokens: 50_000, contextLength: 200_000, thresholdTokens: 150_000, compressionCount: 0 });
    expect(s.usagePercent).toBe(25);
    e.lastPromptTokens = -1;
    expect(e.getStatus().lastPromptTokens).toBe(0);
    expect(e.getStatus().usagePercent).toBe(0);
    e.lastPromptTokens = 999_999;
    expect(e.getStatus().usagePercent).toBe(100);
    e.contextLength = 0;
    expect(e.getStatus().usagePercent).toBe(0);
  });

  it("recordUsage copies the classic figures and tolerates {}", () => {
    const e = new MinimalEngine();
    e.updateFromResponse({ prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, cache_read_tokens: 50 });
    expect([e.lastPromptTokens, e.lastCompletionTokens, e.lastTotalTokens]).toEqual([100, 20, 120]);
    e.updateFromResponse({} as never);
    expect([e.lastPromptTokens, e.lastCompletionTokens, e.lastTotalTokens]).toEqual([0, 0, 0]);
  });
});

describe("updateModel", () => {
  it("sets the window and the threshold from the configured percent", () => {
    const e = new MinimalEngine();
    e.updateModel("gpt-x", 100_000);
    expect(e.contextLength).toBe(100_000);
    expect(e.thresholdTokens).toBe(75_000);
  });

  it("applies modelThresholds and falls back to the configured percent on later switches", () => {
    const e = new MinimalEngine();
    e.thresholdPercent = 0.6;
    e.modelThresholds = { "glm-5.2": 0.4, "openrouter:claude": 0.9 };
    e.updateModel("glm-5.2", 1000);
    expect(e.thresholdPercent).toBe(0.4);
    expect(e.thresholdTokens).toBe(400);
    e.updateModel("other-model", 1000);
    expect(e.thresholdPercent).toBe(0.6);
    expect(e.thresholdTokens).toBe(600);
    e.updateModel("claude-9", 1000, { provider: " OpenRouter " });
    expect(e.thresholdTokens).toBe(900);
    e.updateModel("claude-9", 1000, { provider: "anthropic" });
    expect(e.thresholdTokens).toBe(600);
    expect(e.configuredThresholdPercent).toBe(0.6);
  });

  it("floors the threshold tokens", () => {
    const e = new MinimalEngine();
    e.thresholdPercent = 0.333;
    e.updateModel("m", 1001);
    expect(e.thresholdTokens).toBe(333);
  });
});
