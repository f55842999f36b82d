import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";

/**
 * `BENCH_PROFILE_FIRST=<file.cpuprofile>`: a CPU profile of the first send of a host run (the one that hands an
 * imported history to the engine), sampled with the inspector (this thread only), to see where it goes.
 */
export async function profiled<T>(run: () => Promise<T>): Promise<T> {
  const file = process.env.BENCH_PROFILE_FIRST;
  if (!file) return run();
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 200 });
  await session.post("Profiler.start");
  try {
    return await run();
  } finally {
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  }
}
