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
