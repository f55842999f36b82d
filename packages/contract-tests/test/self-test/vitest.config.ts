import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: new URL("../..", import.meta.url).pathname,
    include: ["test/self-test/*.contract.ts"],
    pool: "forks",
    // One worker per shard: the shards mostly wait on timers, so four run well on two cores.
    maxWorkers: 4,
    testTimeout: 20_000,
  },
});
