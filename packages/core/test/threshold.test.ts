import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { resolveModelThreshold } from "../src/index.js";

describe("resolveModelThreshold", () => {
  const glm = { "glm-5.2": 0.4, "glm-5.2-1M": 0.25 };
  const astra = { astra: 0.7, "openai-codex:astra": 0.85 };

  it.each([
    [glm, "glm-5.2-1M", undefined, 0.25],
    [glm, "glm-5.2", undefined, 0.4],
    [glm, "GLM-5.2-1M", undefined, 0.75],
    [astra, "gpt-6-astra", " OpenAI-Codex ", 0.85],
    [astra, "gpt-6-astra", "openrouter", 0.7],
    [{ "openai-codex:astra": 0.85, "astra-900k": 0.6 }, "gpt-6-astra-900k", "openai-codex", 0.6],
    [{ "qwen3:32b": 0.9 }, "qwen3:32b", "ollama", 0.75],
    [{ "qwen3:32b": 0.9 }, "qwen3-32b-instruct", "qwen3", 0.9],
    [glm, "", undefined, 0.75],
    [{}, "glm-5.2", undefined, 0.75],
    [null, "glm-5.2", undefined, 0.75],
  ] as const)("%j with %s / %s gives %s", (map, model, provider, expected) => {
    expect(resolveModelThreshold(model, map as Record<string, number> | null, 0.75, provider)).toBe(expected);
  });

  it("breaks ties by the lexicographically greatest key", () => {
    expect(resolveModelThreshold("abcd", { ab: 0.1, cd: 0.2, bc: 0.3 }, 0.75)).toBe(0.2);
  });

  it("accepts numeric strings from YAML", () => {
    expect(resolveModelThreshold("m-1", { "m-1": "0.5" }, 0.75)).toBe(0.5);
  });

  const key = fc.string({ minLength: 1, maxLength: 6, unit: fc.constantFrom("a", "b", "c", "-", "1") });
  const pct = fc.double({ min: 0.05, max: 1, noNaN: true });

  it("property: the result is the fallback or the value of a key the model contains", () => {
    fc.assert(
      fc.property(fc.dictionary(key, pct), fc.string({ maxLength: 12, unit: fc.constantFrom("a", "b", "c", "-", "1") }), (map, model) => {
        const r = resolveModelThreshold(model, map, 0.75);
        if (r === 0.75 && !Object.values(map).includes(0.75)) {
          expect(Object.keys(map).some((k) => model.length > 0 && model.includes(k))).toBe(false);
        } else {
          const winners = Object.entries(map).filter(([k, v]) => v === r && model.includes(k));
          expect(winners.length).toBeGreaterThan(0);
        }
      }),
    );
  });

  it("property: no applicable key is longer than the winner", () => {
    fc.assert(
      fc.property(fc.dictionary(key, pct), fc.string({ minLength: 1, maxLength: 12, unit: fc.constantFrom("a", "b", "c", "-", "1") }), (map, model) => {
        const applicable = Object.keys(map).filter((k) => model.includes(k));
        if (applicable.length === 0) return;
        const longest = Math.max(...applicable.map((k) => k.length));
        const r = resolveModelThreshold(model, map, -1);
        const winnerLens = applicable.filter((k) => map[k] === r).map((k) => k.length);
        expect(winnerLens).toContain(longest);
      }),
    );
  });

  it("property: a scoped key never applies to another provider", () => {
    fc.assert(
      fc.property(key, pct, fc.constantFrom("openai", "anthropic", ""), (sub, v, provider) => {
        const map = { [`openrouter:${sub}`]: v };
        expect(resolveModelThreshold(`x${sub}x`, map, 0.75, provider)).toBe(0.75);
        expect(resolveModelThreshold(`x${sub}x`, map, 0.75, "OpenRouter")).toBe(v);
      }),
    );
  });

  it("property: adding a key the model does not contain changes nothing", () => {
    fc.assert(
      fc.property(fc.dictionary(key, pct), fc.string({ minLength: 1, maxLength: 8, unit: fc.constantFrom("a", "b", "c") }), pct, (map, model, v) => {
        const before = resolveModelThreshold(model, map, 0.75);
        const after = resolveModelThreshold(model, { ...map, zzz_not_there: v }, 0.75);
        expect(after).toBe(before);
      }),
    );
  });
});
