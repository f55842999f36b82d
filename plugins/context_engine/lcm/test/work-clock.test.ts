import { setImmediate as nextMacrotask } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { WorkClock } from "../src/engine/work-clock.js";

/** Burn at least `ms` of this process's CPU time (measured, not timed). */
function spinCpu(ms: number): void {
  const start = process.cpuUsage();
  for (;;) {
    const used = process.cpuUsage(start);
    if ((used.user + used.system) / 1000 >= ms) return;
  }
}

/** Let the event loop run `n` macrotasks. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await nextMacrotask();
}

describe("the engine's work clock", () => {
  it("holds background work back while a hook is in flight and lets it go when the last hook leaves", async () => {
    const clock = new WorkClock();
    let leave!: () => void;
    const hook = clock.hook(() => new Promise<void>((resolve) => (leave = resolve)));
    let started = false;
    const waiting = clock.quiet().then(() => (started = true));
    await turns(20);
    expect(clock.hookInFlight).toBe(true);
    expect(started).toBe(false);
    leave();
    await hook;
    await waiting;
    expect(started).toBe(true);
    expect(clock.hookInFlight).toBe(false);
  });

  it("lets background work go on while a hook is in flight when the hook waits for it (unless)", async () => {
    const clock = new WorkClock();
    let leave!: () => void;
    const hook = clock.hook(() => new Promise<void>((resolve) => (leave = resolve)));
    let hookWaitsForUs = false;
    let started = false;
    const waiting = clock.quiet(() => hookWaitsForUs).then(() => (started = true));
    await turns(5);
    expect(started).toBe(false);
    hookWaitsForUs = true;
    await waiting;
    expect(started).toBe(true);
    leave();
    await hook;
  });

  it("credits the CPU time of background slices to the background, not that of hooks or of waits aside", async () => {
    const clock = new WorkClock();
    expect(clock.backgroundCpuMs).toBe(0);
    await clock.background(async () => spinCpu(30));
    const afterSlice = clock.backgroundCpuMs;
    expect(afterSlice).toBeGreaterThanOrEqual(30);

    // A hook that runs while a slice is active (the slice awaits I/O meanwhile) is the hook's, not the background's.
    await clock.background(async () => {
      await clock.hook(async () => spinCpu(30));
      // So is what runs while the slice has stepped aside (a pause, a wait for the hooks).
      await clock.aside(async () => spinCpu(30));
    });
    expect(clock.backgroundCpuMs - afterSlice).toBeLessThan(30);

    // Outside any slice nothing is credited.
    const before = clock.backgroundCpuMs;
    spinCpu(10);
    await clock.hook(async () => spinCpu(10));
    await clock.background(async () => {});
    expect(clock.backgroundCpuMs - before).toBeLessThan(10);
  });
});
