import { describe, expect, it } from "vitest";
import { lookupContextLength, resolveModelConfig } from "../src/index.js";

describe("model settings: window and request timeout", () => {
  it("marks a model the table does not know as a guess, and says where each window came from", () => {
    const guess = resolveModelConfig({ name: "my-own-model", base_url: "http://127.0.0.1:1/v1" }, {});
    expect(guess).toMatchObject({ contextLength: 128_000, contextLengthKnown: false, requestTimeoutMs: 600_000 });
    expect(guess.sources.contextLength).toMatch(/a guess: my-own-model is not in the built-in table/);
    const known = resolveModelConfig({ name: "Qwen/Qwen3-32B" }, {});
    expect(known).toMatchObject({ contextLength: 131_072, contextLengthKnown: true });
    expect(known.sources.contextLength).toBe("built-in table (qwen3)");
    expect(lookupContextLength("gpt-4-0613")).toEqual({ contextLength: 8_192, known: true, matched: "gpt-4" });
    expect(lookupContextLength("gpt-4o-2024-08-06").matched).toBe("gpt-4o");
  });

  it("reads model.context_window (or context_length) and model.request_timeout_seconds", () => {
    const r = resolveModelConfig({ name: "my-own-model", context_window: 32_768, request_timeout_seconds: 45 }, {}, "cfg.yaml");
    expect(r).toMatchObject({ contextLength: 32_768, contextLengthKnown: true, requestTimeoutMs: 45_000 });
    expect(r.sources.contextLength).toBe("cfg.yaml: model.context_window");
    expect(() => resolveModelConfig({ name: "m", context_window: 1000, context_length: 2000 }, {}, "cfg.yaml")).toThrow(/context_length \(2000\) and model.context_window \(1000\) disagree/);
    expect(() => resolveModelConfig({ name: "m", request_timeout_seconds: -1 }, {}, "cfg.yaml")).toThrow(/model\.request_timeout_seconds/);
  });
});
