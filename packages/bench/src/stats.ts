import { loadavg } from "node:os";

/** Summary figures of a list of timings (ms) or sizes. */
export interface Stats {
  n: number;
  median: number;
  p95: number;
  mean: number;
  max: number;
}

/**
 * A wall-time figure with what it needs to be compared: the CPU time of the
 * same calls (user + system of this process, less sensitive to a loaded
 * machine) and the 1-minute load average when it was taken.
 */
export interface Timing extends Stats {
  cpu: Stats;
  load: number;
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

/** The 1-minute load average now, rounded. */
export function loadNow(): number {
  return Math.round(loadavg()[0]! * 100) / 100;
}

/** Wall and CPU samples of the same calls, with the load now. */
export function timing(wallMs: readonly number[], cpuMs: readonly number[]): Timing {
  return { ...summarise(wallMs), cpu: summarise(cpuMs), load: loadNow() };
}

/** CPU time (user + system) of this process so far, in ms. */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
