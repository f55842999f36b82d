import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { className, scaffoldEngine } from "../src/index.js";

// Scaffolds inside this package so the generated test resolves the workspace's built core and kit.
const here = dirname(fileURLToPath(import.meta.url));
const tmp = join(here, "../.scaffold-tmp");
mkdirSync(tmp, { recursive: true });
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const require = createRequire(import.meta.url);
const bin = (pkg: string, rel: string) => join(dirname(require.resolve(`${pkg}/package.json`)), rel);

describe("scaffoldEngine", () => {
  it("writes an npm engine package: core as a peer, exports map, contextEngine field, plugin.yaml, skeleton, kit test", () => {
    const result = scaffoldEngine({ directory: join(tmp, "shape-engine") });
    expect(result.name).toBe("shape-engine");
    const pkg = JSON.parse(readFileSync(join(result.directory, "package.json"), "utf8"));
    expect(pkg.peerDependencies).toEqual({ "@context-engine/core": ">=0.1.0 <1.0.0" });
    expect(pkg.dependencies).toBeUndefined();
    expect(pkg.exports["."]).toEqual({ types: "./dist/index.d.ts", import: "./dist/index.js", default: "./dist/index.js" });
    expect(pkg.contextEngine).toEqual({ name: "shape-engine", entry: "./dist/index.js" });
    expect(readFileSync(join(result.directory, "plugin.yaml"), "utf8")).toMatch(/^name: shape-engine$/m);
    expect(readFileSync(join(result.directory, "src/index.ts"), "utf8")).toContain("export default class ShapeEngine extends ContextEngine");
    expect(existsSync(join(result.directory, "test/contract.test.ts"))).toBe(true);
  });

  it("refuses a bad name and a non-empty directory", () => {
    expect(() => scaffoldEngine({ directory: join(tmp, "Bad Name") })).toThrow(/engine name "Bad Name"/);
    scaffoldEngine({ directory: join(tmp, "taken") });
    expect(() => scaffoldEngine({ directory: join(tmp, "taken") })).toThrow(/not empty/);
    expect(className("lcm")).toBe("LcmEngine");
  });

  it("the untouched skeleton type-checks and passes the kit except the check it marks TODO", () => {
    const { directory } = scaffoldEngine({ directory: join(tmp, "skeleton") });
    const tsc = spawnSync(process.execPath, [bin("typescript", "bin/tsc"), "-p", join(directory, "tsconfig.json")], { encoding: "utf8", timeout: 120_000 });
    expect(`${tsc.stdout}${tsc.stderr}`.trim()).toBe("");
    const run = spawnSync(process.execPath, [bin("vitest", "vitest.mjs"), "run", "--root", directory, "--reporter=json"], { cwd: directory, encoding: "utf8", timeout: 240_000, env: { ...process.env, FORCE_COLOR: "0" } });
    const report = JSON.parse(run.stdout.slice(run.stdout.indexOf("{"))) as { numFailedTests: number; numPassedTests: number; testResults: Array<{ assertionResults: Array<{ title: string; status: string }> }> };
    const results = report.testResults.flatMap((f) => f.assertionResults);
    expect(results.filter((r) => r.status === "failed").map((r) => r.title)).toEqual([]);
    expect(results.find((r) => r.title.startsWith("[TODO] shrinks"))?.status).toBe("passed");
    expect(report.numPassedTests).toBeGreaterThan(40);
  }, 300_000);
});
