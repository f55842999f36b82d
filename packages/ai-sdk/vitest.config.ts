import { defineConfig } from "vitest/config";

// ai@7 needs Node ≥ 22 (its tests run under Node 22 or later through scripts/with-node.mjs); ai@6 runs on any.
const shared = { pool: "forks" as const, testTimeout: 20_000 };
export default defineConfig({
  test: {
    projects: [
      { test: { ...shared, name: "ai-v7", include: ["test/v7/**/*.test.ts", "test/shared/**/*.test.ts"] } },
      { test: { ...shared, name: "ai-v6", include: ["test/v6/**/*.test.ts", "test/shared/**/*.test.ts"] } },
    ],
  },
});
