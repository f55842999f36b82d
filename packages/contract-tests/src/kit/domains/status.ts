import { expect } from "vitest";
import { it } from "../it.js";
import type { Harness } from "../harness.js";
import { registerStatusFigures } from "./status-figures.js";

const STANDARD_FIELDS = ["lastPromptTokens", "thresholdTokens", "contextLength", "usagePercent", "compressionCount"] as const;

export function registerStatus(h: Harness): void {
  it("onSessionReset zeroes the counters (0, never -1)", async () => {
    const engine = await h.create();
    engine.updateFromResponse({ prompt_tokens: 9000, completion_tokens: 77, total_tokens: 9077 });
    engine.compressionCount = 3;
    engine.lastPromptTokens = -1; // the host's "just compacted" sentinel
    await engine.onSessionReset();
    expect(
      {
        lastPromptTokens: engine.lastPromptTokens,
        lastCompletionTokens: engine.lastCompletionTokens,
        lastTotalTokens: engine.lastTotalTokens,
        compressionCount: engine.compressionCount,
      },
      "onSessionReset must set the token counters and compressionCount to 0 (call super.onSessionReset() if you override it)",
    ).toEqual({ lastPromptTokens: 0, lastCompletionTokens: 0, lastTotalTokens: 0, compressionCount: 0 });
  }, h.timeout);

  it("getStatus has the standard fields", async () => {
    const engine = await h.create();
    engine.updateFromResponse({ prompt_tokens: 12_800, completion_tokens: 200, total_tokens: 13_000 });
    const status = engine.getStatus();
    expect(status && typeof status === "object", "getStatus must return an object").toBe(true);
    expect(status.name, "getStatus().name must be the engine's name").toBe(engine.name);
    for (const field of STANDARD_FIELDS) {
      const value = (status as unknown as Record<string, unknown>)[field];
      expect(typeof value === "number" && Number.isFinite(value), `getStatus().${field} must be a finite number (extend super.getStatus() when overriding), got ${String(value)}`).toBe(true);
    }
    expect(status.lastPromptTokens, "getStatus().lastPromptTokens must report the last prompt figure").toBe(12_800);
    expect(status.contextLength).toBe(engine.contextLength);
    expect(status.usagePercent >= 0 && status.usagePercent <= 100, `getStatus().usagePercent must be within 0-100, got ${status.usagePercent}`).toBe(true);
  }, h.timeout);

  it("getStatus never reports a negative usage", async () => {
    const engine = await h.create();
    engine.lastPromptTokens = -1; // written by the host after a committed compaction
    const status = engine.getStatus();
    expect(status.lastPromptTokens >= 0, `getStatus().lastPromptTokens must clamp the -1 sentinel to 0, got ${status.lastPromptTokens}`).toBe(true);
    // A missing usagePercent is the standard-fields check's concern; here only its sign matters.
    expect(!(status.usagePercent < 0), `getStatus().usagePercent must not be negative, got ${status.usagePercent}`).toBe(true);
  }, h.timeout);

  registerStatusFigures(h);
}
