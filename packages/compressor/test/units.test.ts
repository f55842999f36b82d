import type { Message } from "@context-engine/core";
import { createEstimator } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { CompressionConfigError, CompressionConfigSchema, ContextCompressor, parseCompressionConfig, sanitizeToolPairs } from "../src/index.js";
import { planCompaction } from "../src/protection.js";
import { alignBackward, alignForward, indexUnits } from "../src/units.js";
import { expectValid } from "./helpers.js";

const counter = createEstimator();

function group(id: string, results: number): Message[] {
  const calls = Array.from({ length: results }, (_, i) => ({ id: `${id}_${i}`, type: "function" as const, function: { name: "f", arguments: "{}" } }));
  return [{ role: "assistant", content: null, tool_calls: calls }, ...calls.map((c) => ({ role: "tool" as const, tool_call_id: c.id, content: "r".repeat(400) }))];
}

describe("tool groups are atomic", () => {
  const messages: Message[] = [
    { role: "system", content: "s" },
    { role: "user", content: "u" },
    ...group("a", 3),
    { role: "assistant", content: "done" },
    { role: "user", content: "again" },
    ...group("b", 2),
  ];
  const index = indexUnits(messages, counter);

  it("aligns cuts to unit boundaries in both directions", () => {
    // Index 3 is the first result of group a (assistant at 2).
    expect(alignForward(index, 3)).toBe(6);
    expect(alignBackward(index, 4)).toBe(2);
    expect(alignForward(index, 2)).toBe(2);
    expect(alignBackward(index, messages.length)).toBe(messages.length);
  });

  it("never plans a cut inside a group, whatever the budget", () => {
    for (let budget = 0; budget < 1_500; budget += 37) {
      for (const first of [0, 1, 2, 3]) {
        const plan = planCompaction({ messages, index, protectFirstN: first, protectLastN: 1, tailBudget: budget, keepCap: Infinity });
        if (!plan) continue;
        for (const cut of [plan.headEnd, plan.tailStart]) {
          expect(messages[cut]?.role, `cut at ${cut}`).not.toBe("tool");
        }
      }
    }
  });
});

describe("sanitizeToolPairs", () => {
  it("returns the input object for a valid conversation", () => {
    const ok: Message[] = [{ role: "user", content: "u" }, ...group("x", 2)];
    expect(sanitizeToolPairs(ok)).toBe(ok);
  });

  it("drops orphan results, strips unanswered calls, keeps the trailing in-flight call", () => {
    const broken: Message[] = [
      { role: "user", content: "u" },
      { role: "tool", tool_call_id: "ghost", content: "orphan" },
      { role: "assistant", content: "", tool_calls: [{ id: "p1", type: "function", function: { name: "f", arguments: "{}" } }, { id: "p2", type: "function", function: { name: "f", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "p1", content: "ok" },
      { role: "assistant", content: null, tool_calls: [{ id: "lost", type: "function", function: { name: "f", arguments: "{}" } }] },
      { role: "user", content: "next" },
      { role: "assistant", content: null, tool_calls: [{ id: "live", type: "function", function: { name: "f", arguments: "{}" } }] },
    ];
    const fixed = sanitizeToolPairs(broken);
    expectValid(fixed);
    expect(fixed.some((m) => m.role === "tool" && m.tool_call_id === "ghost")).toBe(false);
    expect(fixed[1]).toMatchObject({ tool_calls: [{ id: "p1" }] });
    expect(fixed[3]).toMatchObject({ role: "assistant", content: "(tool call removed)" });
    expect(fixed[3]).not.toHaveProperty("tool_calls");
    expect(fixed.at(-1)).toBe(broken.at(-1));
  });

  it("compress still returns a valid conversation from invalid input", async () => {
    const engine = new ContextCompressor({ contextLength: 3_000 });
    const broken: Message[] = [{ role: "system", content: "s" }];
    for (let i = 0; i < 20; i++) {
      broken.push({ role: "user", content: `q${i} ` + "w ".repeat(80) });
      broken.push({ role: "assistant", content: null, tool_calls: [{ id: `c${i}`, type: "function", function: { name: "f", arguments: "{}" } }] });
      if (i % 3) broken.push({ role: "tool", tool_call_id: `c${i}`, content: "x".repeat(500) });
      else broken.push({ role: "tool", tool_call_id: `wrong${i}`, content: "x".repeat(500) });
    }
    broken.push({ role: "user", content: "final" });
    const out = await engine.compress(broken);
    expectValid(out);
  });
});

describe("configuration", () => {
  it("documents its defaults", () => {
    expect(CompressionConfigSchema.parse({})).toEqual({
      enabled: true,
      threshold: 0.75,
      protect_first_n: 3,
      protect_last_n: 6,
      summary_target_ratio: 0.2,
      model_thresholds: {},
      context_timeout_seconds: 120,
      abort_on_summary_failure: false,
      prune_trigger_percent: 0.5,
      prune_min_result_chars: 4000,
      prune_min_reclaim_tokens: 1024,
      token_counter: "estimate",
    });
  });

  it("names every bad field and what was expected", () => {
    const bad = () => parseCompressionConfig({ threshold: 1.5, protect_last_n: "six", model_thresholds: { "gpt-4o": "high" } }, "config.yaml compression");
    expect(bad).toThrow(CompressionConfigError);
    try {
      bad();
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toContain("config.yaml compression");
      expect(message).toMatch(/compression\.threshold: .*1/);
      expect(message).toMatch(/compression\.protect_last_n: .*number/);
      expect(message).toMatch(/compression\.model_thresholds\.gpt-4o: .*number/);
    }
  });

  it("warns about unknown keys instead of failing", () => {
    const warnings: string[] = [];
    const engine = new ContextCompressor({
      config: { threshold: 0.6, treshold: 0.5 },
      logger: { debug() {}, info() {}, warn: (m) => warnings.push(m), error() {} },
    });
    expect(engine.thresholdPercent).toBe(0.6);
    expect(warnings.join("\n")).toContain("treshold");
  });

  it("can count tokens exactly with tiktoken", async () => {
    const engine = new ContextCompressor({ contextLength: 16_000, config: { token_counter: "o200k_base" } });
    const messages: Message[] = [{ role: "system", content: "s" }];
    for (let i = 0; i < 60; i++) messages.push({ role: i % 2 ? "assistant" : "user", content: `turn ${i}: ` + "lorem ipsum dolor sit amet ".repeat(40) });
    const out = await engine.compress(messages);
    expect(engine.tokenCounter.name).toBe("o200k_base");
    expect(engine.tokenCounter.countMessages(out)).toBeLessThan(engine.thresholdTokens);
    expectValid(out);
  });

  it("applies the window, threshold cap and enabled flag", () => {
    const engine = new ContextCompressor({ contextLength: 200_000, config: { threshold: 0.5, threshold_tokens: 64_000 } });
    expect(engine.thresholdTokens).toBe(64_000);
    expect(engine.contextTimeoutSeconds).toBe(120);
    const off = new ContextCompressor({ contextLength: 10_000, config: { enabled: false } });
    expect(off.shouldCompressInfo(9_999)).toEqual({ compress: false, reason: "disabled" });
    const unknownWindow = new ContextCompressor();
    expect(unknownWindow.shouldCompress(1_000_000)).toBe(false);
    expect(unknownWindow.name).toBe("compressor");
  });
});
