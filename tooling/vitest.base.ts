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

/**
 * Type tests: `test/**\/*.test-d.ts` (expectTypeOf, @ts-expect-error), checked by tsc in vitest's
 * typecheck mode during the package's normal `vitest run`, so CI runs them with the other tests. Each package
 * that has them keeps a `tsconfig.typetest.json`: its tsconfig without project references, since with references
 * tsc reads other packages' `.tsbuild` output and fails whenever `tsc -b` has not run (e.g. after `pnpm build`).
 */
export const typeTests = { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "./tsconfig.typetest.json" } satisfies TestOptions["typecheck"];
