import type { HostResult } from "./host-suite.js";

/**
 * Ratios of CPU time between two figures taken in the same run, so the load
 * of a shared machine cancels out (both sides slow down alike; CPU time moves
 * much less than wall time to begin with).
 */
export interface CostRatios {
  /** Per later turn of a session imported with `size` messages, over one grown turn by turn to the same size. */
  importedOverGrown: { size: number; value: number } | null;
  /** Per later turn at the largest imported size over the smallest (history grew tenfold or more). */
  largeOverSmall: { from: number; to: number; value: number } | null;
}

const lcmOnSqlite = (h: HostResult, mode: HostResult["mode"]) => h.engine === "lcm" && h.store === "sqlite" && h.mode === mode;

/** Host-side CPU median per later turn, imported against grown and large against small (SQLite). */
export function costRatios(host: readonly HostResult[], at = 10_000): CostRatios {
  const near = (h: HostResult, size: number) => h.history >= size && h.history < size * 1.1;
  const imported = host.filter((h) => lcmOnSqlite(h, "imported")).sort((a, b) => a.history - b.history);
  const importedAt = imported.find((h) => near(h, at));
  const grownAt = host.find((h) => lcmOnSqlite(h, "resumed") && near(h, at));
  const small = imported[0];
  const large = imported[imported.length - 1];
  return {
    importedOverGrown: importedAt && grownAt ? { size: at, value: importedAt.perTurn.cpu.median / grownAt.perTurn.cpu.median } : null,
    largeOverSmall: small && large && large.history >= small.history * 5 ? { from: small.history, to: large.history, value: large.perTurn.cpu.median / small.perTurn.cpu.median } : null,
  };
}
