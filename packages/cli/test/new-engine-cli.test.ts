import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runBin, sandbox } from "./helpers/run-bin.js";

describe("context-engine new-engine (built binary)", () => {
  it("scaffolds an engine package; a bad name exits 2; an existing directory exits with an input error", async () => {
    const s = sandbox();
    const r = await runBin(["new-engine", "my-engine"], s);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Created the my-engine engine in my-engine");
    const pkg = JSON.parse(readFileSync(join(s.cwd, "my-engine", "package.json"), "utf8"));
    expect(pkg.contextEngine).toEqual({ name: "my-engine", entry: "./dist/index.js" });
    expect(existsSync(join(s.cwd, "my-engine", "test", "contract.test.ts"))).toBe(true);
    const bad = await runBin(["new-engine", "My Engine"], s);
    expect(bad.code).toBe(2);
    const again = await runBin(["new-engine", "my-engine"], s);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain("not empty");
  });
});

describe("context-engine new-engine: names that match imports, local sources", () => {
  it("new-engine context / context-engine generate a class that does not collide with the imported ContextEngine", async () => {
    const s = sandbox();
    for (const name of ["context", "context-engine"]) {
      const r = await runBin(["new-engine", name], s);
      expect(r.code, r.stderr).toBe(0);
      const source = readFileSync(join(s.cwd, name, "src", "index.ts"), "utf8");
      expect(source).toContain("export default class ContextEngineImpl extends ContextEngine");
      expect(readFileSync(join(s.cwd, name, "test", "contract.test.ts"), "utf8")).toContain("import ContextEngineImpl from");
    }
  });

  it("--core-from takes a local tarball; a missing one is an input error", async () => {
    const s = sandbox();
    writeFileSync(join(s.cwd, "context-engine-core-0.1.0.tgz"), "");
    const r = await runBin(["new-engine", "local-one", "--core-from", "context-engine-core-0.1.0.tgz"], s);
    expect(r.code, r.stderr).toBe(0);
    const pkg = JSON.parse(readFileSync(join(s.cwd, "local-one", "package.json"), "utf8"));
    expect(pkg.devDependencies["@context-engine/core"]).toBe(`file:${join(s.cwd, "context-engine-core-0.1.0.tgz")}`);
    const missing = await runBin(["new-engine", "local-two", "--core-from", "nope.tgz"], s);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain("--core-from");
    expect(existsSync(join(s.cwd, "local-two"))).toBe(false);
  });
});

describe("plugins list with a broken selected engine", () => {
  it("does not show it as Active", async () => {
    const s = sandbox();
    const dir = join(s.home, "plugins", "context_engine", "crashy");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "plugin.yaml"), "name: crashy\ndescription: throws on construction\nversion: 0.0.1\n");
    writeFileSync(join(dir, "index.js"), 'import { ContextEngine } from "@context-engine/core";\nexport default class Crashy extends ContextEngine { constructor() { super(); throw new Error("boom"); } get name() { return "crashy"; } updateFromResponse() {} shouldCompress() { return false; } compress(m) { return m; } }\n');
    writeFileSync(join(s.cwd, "config.yaml"), "context:\n  engine: crashy\n");
    const r = await runBin(["plugins", "list"], s);
    // Exits non-zero (a config problem) and says why on stderr; the row is marked broken, never Active.
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).not.toMatch(/Active: crashy/);
    expect(r.stderr).toMatch(/the active engine "crashy" cannot be loaded/);
  });
});
