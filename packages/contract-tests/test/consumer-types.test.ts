import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// The published .d.ts files (dist/, built before tests) must type-check in a consumer project
// under each module resolution engine authors use, with skipLibCheck off.
const here = dirname(fileURLToPath(import.meta.url));
const tsc = join(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc");
const out = mkdtempSync(join(tmpdir(), "contract-consumer-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

const SETTINGS: Record<string, Record<string, unknown>> = {
  node16: { module: "node16", moduleResolution: "node16" },
  nodenext: { module: "nodenext", moduleResolution: "nodenext" },
  bundler: { module: "esnext", moduleResolution: "bundler" },
};

// With CONTEXT_ENGINE_E2E=1 (CI), packages/e2e checks the same consumer example from packed tarballs
// under the same three settings, so this quicker in-workspace check steps aside there.
const coveredByE2e = process.env.CONTEXT_ENGINE_E2E === "1";
if (coveredByE2e) console.info("[contract-tests] consumer types: checked from tarballs by packages/e2e in this run");

describe.skipIf(coveredByE2e)("published types in a consumer project (skipLibCheck: false)", () => {
  for (const [label, resolution] of Object.entries(SETTINGS)) {
    it(`type-check under ${label}`, () => {
      const config = join(out, `tsconfig.${label}.json`);
      writeFileSync(
        config,
        JSON.stringify({
          compilerOptions: { ...resolution, target: "es2022", strict: true, skipLibCheck: false, noEmit: true, types: ["node"], typeRoots: [join(here, "../node_modules/@types"), join(here, "../../../node_modules/@types")] },
          files: [join(here, "consumer/index.ts")],
        }),
      );
      const run = spawnSync(process.execPath, [tsc, "-p", config], { cwd: join(here, ".."), encoding: "utf8", timeout: 120_000 });
      expect(`${run.stdout}${run.stderr}`.trim(), `tsc under ${label}`).toBe("");
      expect(run.status).toBe(0);
    }, 150_000);
  }
});
