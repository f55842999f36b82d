import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: new URL("../..", import.meta.url).pathname,
    include: ["test/self-test/*.contract.ts"],
    pool: "forks",
    testTimeout: 20_000,
  },
});
