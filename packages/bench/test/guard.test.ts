import { describe, expect, it } from "vitest";
import { GUARD_LIMITS, GUARD_SIZES, GUARD_TARGETS, runGuard } from "../src/guard.js";

/**
 * The per-turn cost guard: CPU-time ratios inside one run (imported history
 * against the same history grown turn by turn at 10k; 10k against 1k), so the
 * machine's load cancels out. `pnpm bench` has the absolute figures.
 */
describe("per-turn cost guard (ratios of CPU time, load cancels out)", () => {
  it("keeps imported histories and longer histories within bounds of the grown and shorter ones", async () => {
    const { ratios, host } = await runGuard();
    const imported = ratios.importedOverGrown;
    const growth = ratios.largeOverSmall;
    expect(imported, "both imported and grown figures at 10k").not.toBeNull();
    expect(growth, "imported figures at 1k and 10k").not.toBeNull();
    const line = (h: (typeof host)[number]) =>
      `${h.mode} ${h.history}: CPU ${h.perTurn.cpu.median.toFixed(2)} ms/turn` +
      `${h.perTurnBackgroundCpu ? ` (+ background ${h.perTurnBackgroundCpu.median.toFixed(2)} beside it)` : ""}` +
      `${h.backlog ? `, backlog ${h.backlog.frontierAfterTurns} → ${h.backlog.frontierDrained} tokens (threshold ${h.backlog.threshold})` : ""} (load ${h.perTurn.load})`;
    process.stderr.write(
      `[guard] imported / grown at ${GUARD_SIZES[1]}: ${imported!.value.toFixed(2)}× (target ${GUARD_TARGETS.importedOverGrown}×, fails above ${GUARD_LIMITS.importedOverGrown}×); ` +
        `${growth!.to} / ${growth!.from}: ${growth!.value.toFixed(2)}× (target ${GUARD_TARGETS.largeOverSmall}×, fails above ${GUARD_LIMITS.largeOverSmall}×)\n[guard] ${host.map(line).join("; ")}\n`,
    );
    // The turns' CPU leaves out the background drain, so the drain must really finish: each imported backlog is
    // under the threshold once the engine is idle, within the run.
    for (const h of host.filter((r) => r.mode === "imported")) {
      expect(h.backlog, `imported ${h.history}: backlog figures`).toBeDefined();
      expect(h.backlog!.frontierDrained, `imported ${h.history}: frontier after the drain`).toBeLessThan(h.backlog!.threshold);
    }
    expect(imported!.value).toBeLessThanOrEqual(GUARD_LIMITS.importedOverGrown);
    expect(growth!.value).toBeLessThanOrEqual(GUARD_LIMITS.largeOverSmall);
  }, 600_000);
});
