import { Bench } from "tinybench";
import type { FnReturnedObject } from "tinybench";
import { summarise } from "./stats.js";
import type { Stats } from "./stats.js";

export interface TimedOptions {
  /** Timed iterations (tinybench runs at least this many). */
  iterations: number;
  /** Untimed iterations first (JIT, caches). */
  warmup?: number;
}

/**
 * Time one task with tinybench and return its samples' figures. The task
 * may return `{ overriddenDuration }` to time only part of an iteration
 * (the host's deep copy is made outside the timed part, for instance);
 * every iteration runs its correctness check, and a failed check fails the
 * run. `time: 0` makes tinybench stop at the iteration count.
 */
export async function timed(name: string, fn: () => Promise<FnReturnedObject | void> | FnReturnedObject | void, options: TimedOptions): Promise<Stats> {
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
  bench.add(name, fn);
  const [task] = await bench.run();
  const result = task!.result;
  if (result.state === "errored") throw result.error;
  if (result.state !== "completed") throw new Error(`${name}: benchmark ${result.state}`);
  const samples = result.latency.samples ?? [];
  return summarise(samples);
}
