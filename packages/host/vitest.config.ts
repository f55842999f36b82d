import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    pool: "forks",
    // Test files share nothing but read-only caches; one module graph per worker halves the run.
    isolate: false,
    testTimeout: 20_000,
  },
});
