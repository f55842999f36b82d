import { describe, expect, it } from "vitest";
import { runScript } from "./engine-helpers.js";

describe("whenIdle in a process with nothing else to do", () => {
  it("keeps the process alive until the drain is done (its pauses are unref'd only while nobody waits)", { timeout: 120_000 }, async () => {
    const { code, out, err } = await runScript(new URL("./drain-worker.ts", import.meta.url));
    expect(code, err).toBe(0);
    const { frontier, threshold } = JSON.parse(out.trim()) as { frontier: number; threshold: number };
    expect(frontier).toBeLessThan(threshold);
  });
});
