import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    globalSetup: ["test/helpers/global-setup.ts"],
    pool: "forks",
    // Most of the time goes to waiting on the spawned CLI and Chromium; two files at once use both cores.
    maxWorkers: 2,
    testTimeout: 30_000,
  },
});
