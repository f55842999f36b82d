import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { BROKEN_ENGINES } from "./engines/broken-engines.js";

interface AssertionResult {
  ancestorTitles: string[];
  title: string;
  status: string;
  failureMessages: string[];
}

const here = dirname(fileURLToPath(import.meta.url));
const out = mkdtempSync(join(tmpdir(), "contract-self-test-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** One vitest run over every broken engine; the JSON report says which kit tests failed for each. */
function runBrokenEngines(): Map<string, AssertionResult[]> {
  const vitest = join(dirname(createRequire(import.meta.url).resolve("vitest/package.json")), "vitest.mjs");
  const report = join(out, "report.json");
  const run = spawnSync(process.execPath, [vitest, "run", "--config", join(here, "self-test/vitest.config.ts"), "--reporter=json", `--outputFile=${report}`], {
    cwd: join(here, ".."),
    encoding: "utf8",
    env: { ...process.env, FORCE_COLOR: "0" },
    timeout: 240_000,
  });
  let json: { testResults: Array<{ assertionResults: AssertionResult[] }> };
  try {
    json = JSON.parse(readFileSync(report, "utf8"));
  } catch {
    throw new Error(`the self-test vitest run produced no report (exit ${run.status}):\n${run.stderr}\n${run.stdout}`.slice(0, 4000));
  }
  const bySuite = new Map<string, AssertionResult[]>();
  for (const file of json.testResults) {
    for (const result of file.assertionResults) {
      const suite = result.ancestorTitles[0] ?? "";
      if (!bySuite.has(suite)) bySuite.set(suite, []);
      bySuite.get(suite)!.push(result);
    }
  }
  return bySuite;
}

describe("the kit catches each deliberately broken engine with exactly the test aimed at it", () => {
  const results = runBrokenEngines();

  for (const broken of BROKEN_ENGINES) {
    it(`${broken.defect} fails only "${broken.aimedAt}"`, () => {
      const suite = results.get(`broken:${broken.defect}`) ?? [];
      expect(suite.length, `no results for broken:${broken.defect}`).toBeGreaterThan(0);
      const failed = suite.filter((r) => r.status === "failed");
      expect(failed.map((r) => `${r.ancestorTitles.slice(1).join(" > ")} > ${r.title}`)).toEqual([broken.aimedAt]);
      expect(failed[0]!.failureMessages.join("\n").length, "the failure must carry a message").toBeGreaterThan(20);
    });
  }
});
