import { expect } from "vitest";
import { it } from "../it.js";
import type { Harness } from "../harness.js";

export function registerStatusFigures(h: Harness): void {
  it("getStatus().usagePercent is a percent (0-100) of the context window, not a fraction", async () => {
    const engine = await h.create({ contextLength: 100_000 });
    engine.updateFromResponse({ prompt_tokens: 25_000, completion_tokens: 10, total_tokens: 25_010 });
    const status = engine.getStatus();
    expect(Math.abs(status.usagePercent - 25) < 0.5, `25000 of 100000 tokens must read usagePercent 25, got ${status.usagePercent}`).toBe(true);
  }, h.timeout);

  it("getStatus reflects the current figures, never stale ones", async () => {
    const engine = await h.create({ contextLength: 100_000 });
    engine.getStatus(); // a cached first answer must not be returned later
    await engine.updateModel(h.model, 200_000);
    engine.updateFromResponse({ prompt_tokens: 40_000, completion_tokens: 10, total_tokens: 40_010 });
    engine.compressionCount = 2;
    const status = engine.getStatus();
    expect(
      {
        lastPromptTokens: status.lastPromptTokens,
        thresholdTokens: status.thresholdTokens,
        contextLength: status.contextLength,
        compressionCount: status.compressionCount,
      },
      "getStatus must report the engine's current fields (compute it on each call)",
    ).toEqual({ lastPromptTokens: 40_000, thresholdTokens: engine.thresholdTokens, contextLength: 200_000, compressionCount: 2 });
    expect(Math.abs(status.usagePercent - 20) < 0.5, `40000 of 200000 must read usagePercent 20 after the model switch, got ${status.usagePercent}`).toBe(true);
  }, h.timeout);

  it("updateFromResponse reads prompt_tokens (the whole prompt), not input_tokens or a sum with the cache buckets", async () => {
    const engine = await h.create();
    // OpenAI-style: prompt_tokens already includes the cached part; input_tokens is the uncached part.
    engine.updateFromResponse({ prompt_tokens: 9000, completion_tokens: 300, total_tokens: 9300, input_tokens: 900, output_tokens: 300, cache_read_tokens: 8000, cache_write_tokens: 100, reasoning_tokens: 120 });
    expect([engine.lastPromptTokens, engine.lastCompletionTokens, engine.lastTotalTokens], "with buckets present the figures must still be prompt_tokens, completion_tokens and total_tokens").toEqual([9000, 300, 9300]);
    // total_tokens is taken as reported, not recomputed.
    engine.updateFromResponse({ prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1250 });
    expect(engine.lastTotalTokens, "lastTotalTokens must be the reported total_tokens").toBe(1250);
  }, h.timeout);

  it("onSessionReset clears what the previous conversation left (the next status starts from zero)", async () => {
    const engine = await h.create();
    engine.updateFromResponse({ prompt_tokens: 5000, completion_tokens: 5, total_tokens: 5005 });
    engine.compressionCount = 4;
    await engine.onSessionReset();
    const status = engine.getStatus();
    expect([status.lastPromptTokens, status.compressionCount, status.usagePercent], "getStatus after onSessionReset must show 0 tokens, 0 compactions, 0 %").toEqual([0, 0, 0]);
    expect(engine.thresholdTokens, "onSessionReset must keep the model's threshold").toBeGreaterThan(0);
    expect(engine.contextLength, "onSessionReset must keep the context length").toBe(h.contextLength);
  }, h.timeout);
}
