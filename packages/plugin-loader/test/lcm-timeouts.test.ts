import { existsSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkConfig, EngineLoadError, loadConfig, loadEngine } from "../src/index.js";
import { captureLogger, REPO_ROOT, sandbox } from "./helpers.js";
import type { Sandbox } from "./helpers.js";

/** PostgreSQL timeouts above the driver's maximum (one day) are refused by key at check and at load, never as an unreachable server. */

const LCM_DIST = join(REPO_ROOT, "plugins/context_engine/lcm/dist/index.js");
const built = existsSync(LCM_DIST);
const DAY = 86_400_000;

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());
const opts = (b: Sandbox) => ({ cwd: b.cwd, home: b.home, nodeModules: false as const, env: {}, logger: captureLogger() });

describe.skipIf(!built)("engines.lcm PostgreSQL timeouts", () => {
  it("above one day: config check names the key; loading names it too and says nothing about reaching a server", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("lock_timeout_ms", "statement_timeout_ms", "connect_timeout_ms"),
        fc.oneof(fc.integer({ min: DAY + 1, max: 2 ** 53 - 1 }), fc.constant(DAY + 1), fc.constant(2 ** 31)),
        async (key, value) => {
          const file = box.write("project/config.yaml", `context:\n  engine: lcm\nengines:\n  lcm:\n    store: postgres://u@127.0.0.1:1/db\n    ${key}: ${value}\n`);
          const problems = await checkConfig(file, opts(box));
          expect(problems).toEqual([expect.objectContaining({ key: `engines.lcm.${key}`, line: 6, severity: "error" })]);
          expect(problems[0]!.message).toMatch(/86400000|one day/);
          const error = await loadEngine(await loadConfig({ cwd: box.cwd, home: box.home }), {}, opts(box)).then(
            () => null,
            (e: unknown) => e,
          );
          expect(EngineLoadError.is(error)).toBe(true);
          expect((error as Error).message).toContain(key);
          expect((error as Error).message).not.toMatch(/cannot be reached|unreachable/);
        },
      ),
      { numRuns: 12 },
    );
  });

  it("up to one day is accepted by config check", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("lock_timeout_ms", "statement_timeout_ms", "connect_timeout_ms"), fc.integer({ min: 0, max: DAY }), async (key, value) => {
        const file = box.write("project/config.yaml", `context:\n  engine: lcm\nengines:\n  lcm:\n    ${key}: ${value}\n`);
        expect(await checkConfig(file, opts(box))).toEqual([]);
      }),
      { numRuns: 8 },
    );
  });
});
