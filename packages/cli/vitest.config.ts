import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    globalSetup: ["test/helpers/global-setup.ts"],
    pool: "forks",
    testTimeout: 30_000,
  },
});
