import type { Usage } from "@context-engine/core";
import { expect } from "vitest";
import { it } from "../it.js";
import type { Harness } from "../harness.js";

export function registerUsage(h: Harness): void {
  it("updateFromResponse records the last prompt, completion and total tokens", async () => {
    const engine = await h.create();
    engine.updateFromResponse({ prompt_tokens: 1200, completion_tokens: 300, total_tokens: 1500 });
    expect(engine.lastPromptTokens, "lastPromptTokens must be the response's prompt_tokens").toBe(1200);
    expect(engine.lastCompletionTokens, "lastCompletionTokens must be the response's completion_tokens").toBe(300);
    expect(engine.lastTotalTokens, "lastTotalTokens must be the response's total_tokens").toBe(1500);
    // The figures are the LAST response's, not running sums.
    engine.updateFromResponse({ prompt_tokens: 800, completion_tokens: 40, total_tokens: 840 });
    expect(
      [engine.lastPromptTokens, engine.lastCompletionTokens, engine.lastTotalTokens],
      "a second response must replace the figures (they are the last response's, not sums)",
    ).toEqual([800, 40, 840]);
  }, h.timeout);

  it("updateFromResponse accepts usage with the optional buckets and without them", async () => {
    const full: Usage = {
      prompt_tokens: 5000,
      completion_tokens: 700,
      total_tokens: 5700,
      input_tokens: 5000,
      output_tokens: 700,
      cache_read_tokens: 4096,
      cache_write_tokens: 512,
      reasoning_tokens: 250,
    };
    const withBuckets = await h.create();
    expect(() => withBuckets.updateFromResponse(full), "updateFromResponse must accept the optional buckets").not.toThrow();
    expect([withBuckets.lastPromptTokens, withBuckets.lastCompletionTokens, withBuckets.lastTotalTokens], "figures from a usage with buckets").toEqual([5000, 700, 5700]);
    const plain = await h.create();
    expect(() => plain.updateFromResponse({ prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 })).not.toThrow();
    expect([plain.lastPromptTokens, plain.lastCompletionTokens, plain.lastTotalTokens], "figures from a usage without buckets").toEqual([10, 2, 12]);
    // Hosts pass {} when a response carried no usage while waiting for real figures.
    const empty = await h.create();
    expect(() => empty.updateFromResponse({} as Usage), "updateFromResponse({}) must not throw").not.toThrow();
    for (const field of ["lastPromptTokens", "lastCompletionTokens", "lastTotalTokens"] as const) {
      expect(Number.isFinite(empty[field]), `${field} must stay a finite number after updateFromResponse({})`).toBe(true);
    }
  }, h.timeout);
}
