import { defineConfig } from "vitest/config";

type TestOptions = NonNullable<Parameters<typeof defineConfig>[0] extends infer C ? (C extends { test?: infer T } ? T : never) : never>;

/** The test settings every package shares; packages pass only what differs. */
export function packageTests(overrides: TestOptions = {}) {
  return defineConfig({
    test: {
      include: ["test/**/*.test.ts", "src/**/*.test.ts"],
      pool: "forks",
      testTimeout: 20_000,
      ...overrides,
    },
  });
}
