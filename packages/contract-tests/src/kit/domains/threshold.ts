import { expect } from "vitest";
import { it } from "../it.js";
import type { Harness } from "../harness.js";
import { mapRulesApply, registerThresholdPolicy } from "./threshold-policy.js";

export function registerThreshold(h: Harness): void {
  it("shouldCompress is false below thresholdTokens and true at or above it", async () => {
    const engine = await h.create({ contextLength: 200_000 });
    const t = engine.thresholdTokens;
    expect(t > 0 && t <= 200_000, `thresholdTokens must be in (0, contextLength] after updateModel, got ${t}`).toBe(true);
    expect(engine.shouldCompress(t - 1), `shouldCompress(${t - 1}) must be false (below thresholdTokens ${t})`).toBe(false);
    expect(engine.shouldCompress(t), `shouldCompress(${t}) must be true (at thresholdTokens)`).toBe(true);
    expect(engine.shouldCompress(t + 5000), `shouldCompress(${t + 5000}) must be true (above thresholdTokens)`).toBe(true);
    // Without an argument the last prompt figure is used.
    engine.updateFromResponse({ prompt_tokens: t - 1, completion_tokens: 10, total_tokens: t + 9 });
    expect(engine.shouldCompress(), "shouldCompress() must use lastPromptTokens when called without an argument (below)").toBe(false);
    engine.updateFromResponse({ prompt_tokens: t, completion_tokens: 10, total_tokens: t + 10 });
    expect(engine.shouldCompress(), "shouldCompress() must use lastPromptTokens when called without an argument (at threshold)").toBe(true);
  }, h.timeout);

  it("updateModel recomputes the threshold for a new context length", async () => {
    const engine = await h.create({ contextLength: 200_000 });
    const big = engine.thresholdTokens;
    await engine.updateModel(h.model, 100_000);
    expect(engine.contextLength, "updateModel must set contextLength").toBe(100_000);
    const small = engine.thresholdTokens;
    expect(small > 0 && small <= 100_000, `thresholdTokens must be in (0, 100000] after updateModel(…, 100000), got ${small}`).toBe(true);
    expect(small < big, `a smaller window must give a smaller threshold (200000 → ${big}, 100000 → ${small})`).toBe(true);
    await engine.updateModel(h.model, 200_000);
    expect(engine.thresholdTokens, "switching back must give the first threshold again").toBe(big);
  }, h.timeout);

  it("updateModel honours modelThresholds", async (ctx) => {
    if (!(await mapRulesApply(h, ctx))) return;
    const engine = await h.create({
      contextLength: 200_000,
      modelThresholds: { "contract-override": 0.9 },
    });
    const configured = engine.thresholdTokens;
    await engine.updateModel("vendor/contract-override-1", 200_000);
    expect(
      Math.abs(engine.thresholdTokens - 180_000) <= 1,
      `modelThresholds {"contract-override": 0.9} must apply to model "vendor/contract-override-1": expected thresholdTokens 180000 (0.9 × 200000), got ${engine.thresholdTokens}`,
    ).toBe(true);
    await engine.updateModel(h.model, 200_000);
    expect(engine.thresholdTokens, "a model with no override must fall back to the configured threshold, not keep the previous override").toBe(configured);
  }, h.timeout);

  registerThresholdPolicy(h);
}
