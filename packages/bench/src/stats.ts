/** Summary figures of a list of timings (ms) or sizes. */
export interface Stats {
  n: number;
  median: number;
  p95: number;
  mean: number;
  max: number;
}

/** Nearest-rank percentile of a sorted list. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export function summarise(samples: readonly number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length);
  return {
    n: sorted.length,
    median: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    mean,
    max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
  };
}
