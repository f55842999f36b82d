import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { className, engineFiles, scaffoldEngine, TEMPLATE_IDENTIFIERS } from "../src/index.js";

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
    const report = JSON.parse(run.stdout.slice(run.stdout.indexOf("{"))) as { numFailedTests: number; numPassedTests: number; numTotalTests: number; testResults: Array<{ assertionResults: Array<{ title: string; status: string }> }> };
    const results = report.testResults.flatMap((f) => f.assertionResults);
    expect(results.filter((r) => r.status === "failed").map((r) => r.title)).toEqual([]);
    expect(results.find((r) => r.title.startsWith("[TODO] shrinks"))?.status).toBe("passed");
    expect(report.numPassedTests).toBeGreaterThan(40);
    // The root README promises "about 70 checks": keep the two in step.
    expect(report.numTotalTests).toBeGreaterThanOrEqual(60);
    expect(report.numTotalTests).toBeLessThanOrEqual(80);
  }, 300_000);
});

describe("generated code parses whatever the engine name", () => {
  const ts = require("typescript") as typeof import("typescript");
  /** Names declared at the top level of a generated file (imports and declarations). */
  function topLevelNames(source: string): string[] {
    const file = ts.createSourceFile("x.ts", source, ts.ScriptTarget.ES2022, true);
    const names: string[] = [];
    for (const st of file.statements) {
      if (ts.isImportDeclaration(st)) {
        const clause = st.importClause;
        if (clause?.name) names.push(clause.name.text);
        const bindings = clause?.namedBindings;
        if (bindings && ts.isNamedImports(bindings)) names.push(...bindings.elements.map((e) => e.name.text));
      } else if ((ts.isClassDeclaration(st) || ts.isFunctionDeclaration(st)) && st.name) names.push(st.name.text);
    }
    return names;
  }
  // The reported ones, every imported identifier in engine form, and generated names.
  const generated = Array.from({ length: 40 }, (_, i) => ["a", "context", "engine", "message", "usage", "x9"][i % 6]! + ["", "-engine", "_engine", "-context-engine", `-${i}`][i % 5]!);
  const names = [...new Set(["context", "context-engine", "context_engine", "compress-options", "engine-init-context", "message", "usage", "engine", ...generated])];
  it.each(names)("%s", (name) => {
    const files = engineFiles({ name, description: "d" });
    for (const rel of ["src/index.ts", "test/contract.test.ts"]) {
      const declared = topLevelNames(files[rel]!);
      expect(new Set(declared).size, `${rel}: ${declared.join(", ")}`).toBe(declared.length);
      const parsed = ts.transpileModule(files[rel]!, { reportDiagnostics: true, compilerOptions: { module: ts.ModuleKind.ESNext } });
      expect(parsed.diagnostics ?? []).toEqual([]);
    }
    expect(TEMPLATE_IDENTIFIERS.has(className(name))).toBe(false);
  });
  it("every identifier the templates import is known to className", () => {
    const files = engineFiles({ name: "probe", description: "d" });
    const imported = [...topLevelNames(files["src/index.ts"]!), ...topLevelNames(files["test/contract.test.ts"]!)].filter((n) => n !== "ProbeEngine");
    for (const n of imported) expect(TEMPLATE_IDENTIFIERS.has(n), n).toBe(true);
    expect(className("context")).toBe("ContextEngineImpl");
  });
});

describe("local @context-engine/* sources (before publishing)", () => {
  const coreDir = dirname(require.resolve("@context-engine/core/package.json"));
  it("--core-from a folder or tarball writes file: specs and pins the kit's core to it", () => {
    const tarball = join(tmp, "context-engine-core-0.1.0.tgz");
    writeFileSync(tarball, "");
    const result = scaffoldEngine({ directory: join(tmp, "local-src"), coreFrom: tarball, kitFrom: dirname(require.resolve("@context-engine/contract-tests/package.json")) });
    const pkg = JSON.parse(readFileSync(join(result.directory, "package.json"), "utf8"));
    expect(pkg.devDependencies["@context-engine/core"]).toBe(`file:${tarball}`);
    expect(pkg.devDependencies["@context-engine/contract-tests"]).toMatch(/^file:\/.*contract-tests$/);
    expect(pkg.peerDependencies["@context-engine/core"]).toBe(">=0.1.0 <1.0.0");
    expect(pkg.overrides).toEqual({ "@context-engine/core": "$@context-engine/core" });
    expect(JSON.parse(readFileSync(join(scaffoldEngine({ directory: join(tmp, "dir-src"), coreFrom: coreDir }).directory, "package.json"), "utf8")).devDependencies["@context-engine/core"]).toBe(`file:${coreDir}`);
  });
  it("refuses a missing path, a folder of another package, and a file that is not a tarball", () => {
    expect(() => scaffoldEngine({ directory: join(tmp, "bad1"), coreFrom: join(tmp, "nope.tgz") })).toThrow(/--core-from: .*does not exist/);
    expect(() => scaffoldEngine({ directory: join(tmp, "bad2"), coreFrom: dirname(require.resolve("@context-engine/contract-tests/package.json")) })).toThrow(/holds "@context-engine\/contract-tests", not @context-engine\/core/);
    writeFileSync(join(tmp, "notes.txt"), "x");
    expect(() => scaffoldEngine({ directory: join(tmp, "bad3"), coreFrom: join(tmp, "notes.txt") })).toThrow(/neither a package folder nor a \.tgz/);
  });
});
