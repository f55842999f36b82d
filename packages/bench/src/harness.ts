import { Bench } from "tinybench";
import { cpuMs, timing } from "./stats.js";
import type { Timing } from "./stats.js";

export interface TimedOptions {
  /** Timed iterations (tinybench runs at least this many). */
  iterations: number;
  /** Untimed iterations first (JIT, caches). */
  warmup?: number;
}

/** What an iteration may report instead of its whole duration (the host's deep copy is made outside the timed part, for instance). */
export interface Sample {
  wallMs: number;
  cpuMs: number;
}

/**
 * Time one task with tinybench and return its samples' figures, with the CPU
 * time of every iteration beside its wall time. The task may return a
 * `Sample` to time only part of an iteration; every iteration runs its
 * correctness check, and a failed check fails the run. `time: 0` makes
 * tinybench stop at the iteration count.
 */
export async function timed(name: string, fn: () => Promise<Sample | void> | Sample | void, options: TimedOptions): Promise<Timing> {
  const bench = new Bench({
    name,
    iterations: options.iterations,
    time: 0,
    warmup: (options.warmup ?? 0) > 0,
    warmupIterations: options.warmup ?? 0,
    warmupTime: 0,
    retainSamples: true,
    throws: true,
  });
  const cpu: number[] = [];
  bench.add(name, async () => {
    const t = performance.now();
    const c = cpuMs();
    const own = await fn();
    if (own) {
      cpu.push(own.cpuMs);
      return { overriddenDuration: own.wallMs };
    }
    cpu.push(cpuMs() - c);
    return { overriddenDuration: performance.now() - t };
  });
  const [task] = await bench.run();
  const result = task!.result;
  if (result.state === "errored") throw result.error;
  if (result.state !== "completed") throw new Error(`${name}: benchmark ${result.state}`);
  const samples = result.latency.samples ?? [];
  // The warm-up iterations come first; the timed ones are the last `samples.length`.
  return timing(samples, cpu.slice(-samples.length));
}
