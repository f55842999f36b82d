import type { ContextEngine } from "@context-engine/core";
import { expect, type TestContext } from "vitest";
import { it } from "../it.js";
import { overridesUpdateModel, type Harness } from "../harness.js";

const WINDOW = 200_000;

/**
 * Whether the modelThresholds checks apply. The base `updateModel` must honour
 * the map; an engine that overrides it owns its policy and may ignore the map
 * — but if it reacts to the map at all, it must resolve it as documented.
 */
export async function mapRulesApply(h: Harness, ctx: TestContext): Promise<boolean> {
  const caps = await h.capabilities();
  if (caps.ownsThresholdPolicy) {
    ctx.skip(`the engine owns its threshold policy (${caps.from.ownsThresholdPolicy})`);
    return false;
  }
  const plain = await h.create({ contextLength: WINDOW });
  if (!overridesUpdateModel(plain) || caps.from.ownsThresholdPolicy !== "inferred") return true;
  const mapped = await h.create({ contextLength: WINDOW, modelThresholds: { "contract-override": 0.9 } });
  await Promise.all([plain.updateModel("vendor/contract-override-1", WINDOW), mapped.updateModel("vendor/contract-override-1", WINDOW)]);
  if (plain.thresholdTokens === mapped.thresholdTokens) {
    ctx.skip("updateModel is overridden and ignores modelThresholds (the engine owns its policy, which the contract allows)");
    return false;
  }
  return true;
}

async function thresholdFor(h: Harness, map: Record<string, number>, model: string, provider?: string): Promise<ContextEngine> {
  const engine = await h.create({ contextLength: WINDOW, modelThresholds: map });
  await engine.updateModel(model, WINDOW, provider ? { provider } : {});
  return engine;
}

const near = (a: number, b: number) => Math.abs(a - b) <= 1;

export function registerThresholdPolicy(h: Harness): void {
  it("modelThresholds: the longest matching key wins, not the first", async (ctx) => {
    if (!(await mapRulesApply(h, ctx))) return;
    // The shorter key comes first, so first-match gives 0.5.
    const engine = await thresholdFor(h, { contract: 0.5, "contract-override": 0.9, zzz: 0.1 }, "vendor/contract-override-1");
    expect(near(engine.thresholdTokens, 0.9 * WINDOW), `modelThresholds {contract: 0.5, "contract-override": 0.9} for model "vendor/contract-override-1": the longest matching key ("contract-override") must win → ${0.9 * WINDOW}, got ${engine.thresholdTokens} (use resolveModelThreshold from @context-engine/core)`).toBe(true);
    const reversed = await thresholdFor(h, { "contract-override": 0.9, contract: 0.5 }, "vendor/contract-other");
    expect(near(reversed.thresholdTokens, 0.5 * WINDOW), `for model "vendor/contract-other" only "contract" matches → ${0.5 * WINDOW}, got ${reversed.thresholdTokens}`).toBe(true);
  }, h.timeout);

  it("modelThresholds: provider-scoped keys apply only to their provider", async (ctx) => {
    if (!(await mapRulesApply(h, ctx))) return;
    const map = { "acme:contract-override": 0.4 };
    const other = await thresholdFor(h, map, "vendor/contract-override-1", "othercloud");
    const configured = (await h.create({ contextLength: WINDOW })).thresholdTokens;
    expect(other.thresholdTokens, `the key "acme:contract-override" must not apply to provider "othercloud" (got ${other.thresholdTokens}, configured ${configured})`).toBe(configured);
    const none = await thresholdFor(h, map, "vendor/contract-override-1");
    expect(none.thresholdTokens, `the key "acme:contract-override" must not apply when no provider is given`).toBe(configured);
    const acme = await thresholdFor(h, map, "vendor/contract-override-1", " ACME ");
    expect(near(acme.thresholdTokens, 0.4 * WINDOW), `the key "acme:contract-override" must apply to provider " ACME " (trimmed, case-insensitive) → ${0.4 * WINDOW}, got ${acme.thresholdTokens}`).toBe(true);
  }, h.timeout);

  it("modelThresholds: a model switch re-resolves from the configured threshold", async (ctx) => {
    if (!(await mapRulesApply(h, ctx))) return;
    const engine = await h.create({ contextLength: WINDOW, modelThresholds: { "contract-a": 0.5, "contract-b": 0.6 } });
    const configured = engine.thresholdTokens;
    await engine.updateModel("contract-a", WINDOW);
    expect(near(engine.thresholdTokens, 0.5 * WINDOW), `model "contract-a" → ${0.5 * WINDOW}, got ${engine.thresholdTokens}`).toBe(true);
    await engine.updateModel("contract-b", WINDOW);
    expect(near(engine.thresholdTokens, 0.6 * WINDOW), `switching to "contract-b" → ${0.6 * WINDOW}, got ${engine.thresholdTokens}`).toBe(true);
    await engine.updateModel("unmatched", WINDOW);
    expect(engine.thresholdTokens, "a model with no override falls back to the configured threshold").toBe(configured);
  }, h.timeout);

  it("shouldCompress is false before updateModel has run", async () => {
    const engine = await h.create({ skipUpdateModel: true });
    expect(engine.shouldCompress(0), "shouldCompress(0) before updateModel must be false").toBe(false);
    expect(engine.shouldCompress(1_000), "shouldCompress(1000) before updateModel must be false: 1000 tokens is nowhere near any window (a threshold of 0 must not mean 'always compress')").toBe(false);
    expect(engine.shouldCompress(), "shouldCompress() before any usage and before updateModel must be false").toBe(false);
  }, h.timeout);

  it("shouldCompress waits for real usage after a committed compaction (lastPromptTokens -1)", async () => {
    const engine = await h.create();
    engine.updateFromResponse({ prompt_tokens: engine.thresholdTokens + 100, completion_tokens: 1, total_tokens: engine.thresholdTokens + 101 });
    engine.lastPromptTokens = -1;
    expect(engine.shouldCompress(), "with lastPromptTokens -1 (the host's 'wait for real usage' sentinel) shouldCompress() must be false").toBe(false);
    expect(engine.shouldCompress(engine.thresholdTokens), "an explicit figure at the threshold must still decide").toBe(true);
  }, h.timeout);

  it("shouldCompressInfo agrees with shouldCompress", async () => {
    const engine = await h.create();
    const t = engine.thresholdTokens;
    for (const tokens of [0, t - 1, t, t + 1000]) {
      const info = engine.shouldCompressInfo(tokens);
      expect(info && typeof info === "object", "shouldCompressInfo must return { compress, reason }").toBe(true);
      expect(info.compress, `shouldCompressInfo(${tokens}).compress must equal shouldCompress(${tokens})`).toBe(engine.shouldCompress(tokens));
      expect(info.reason === null || typeof info.reason === "string", `shouldCompressInfo(${tokens}).reason must be a string or null`).toBe(true);
    }
  }, h.timeout);
}
