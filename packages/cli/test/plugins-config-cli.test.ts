import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FIXTURES, runBin, sandbox } from "./helpers/run-bin.js";

/** A user plugin whose plugin.yaml names another engine: found, listed, and refused with the reason. */
function brokenUserPlugin(home: string): void {
  const dir = join(home, "plugins", "context_engine", "broken");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "plugin.yaml"), "name: other\ndescription: a mislabelled plugin\nversion: 0.0.1\n");
  writeFileSync(join(dir, "index.js"), "export class Broken {}\n");
}

describe("context-engine plugins (built binary)", () => {
  it("lists every engine with source, version, status and the active one", async () => {
    const s = sandbox();
    brokenUserPlugin(s.home);
    writeFileSync(join(s.cwd, "config.yaml"), "context:\n  engine: lcm\n");
    const r = await runBin(["plugins", "list"], { ...s, env: { ...s.env, COLUMNS: "200" } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ +compressor +builtin +[\d.]+ +ok /m);
    expect(r.stdout).toMatch(/^● +lcm +bundled +[\d.]+ +ok /m);
    expect(r.stdout).toMatch(/^ +broken +user +0\.0\.1 +plugin\.yaml name "other" does not match its directory "broken"/m);
    expect(r.stdout).toContain(`Active: lcm (context.engine in ${join(s.cwd, "config.yaml")}:2)`);
    // A config.yaml that does not set context.engine is not named as its source.
    writeFileSync(join(s.cwd, "config.yaml"), "model:\n  name: m\n");
    const unset = await runBin(["plugins", "list"], { ...s, env: { ...s.env, COLUMNS: "200" } });
    expect(unset.stdout).toContain(`Active: compressor (the default: ${join(s.cwd, "config.yaml")} does not set context.engine)`);
    writeFileSync(join(s.cwd, "config.yaml"), "context:\n  engine: lcm\n");
    const json = await runBin(["plugins", "list", "--json"], s);
    const parsed = JSON.parse(json.stdout) as { engines: Array<{ name: string; active: boolean; status: string }> };
    expect(parsed.engines.filter((e) => e.active).map((e) => e.name)).toEqual(["lcm"]);
  });

  it("fits the terminal width, wrapping long reasons instead of running past the edge", async () => {
    const s = sandbox();
    brokenUserPlugin(s.home);
    for (const columns of ["60", "80"]) {
      const r = await runBin(["plugins", "list"], { ...s, env: { ...s.env, COLUMNS: columns } });
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.split("\n");
      expect(Math.max(...lines.map((l) => l.length)), r.stdout).toBeLessThanOrEqual(Number(columns));
      // The reason is wrapped, not cut: every word of it is still there.
      for (const word of 'plugin.yaml name "other" does not match its directory "broken"'.split(" ")) expect(r.stdout).toContain(word);
      expect(r.stdout).toMatch(/^ +broken +user +0\.0\.1 +plugin\.yaml/m);
    }
  });

  it("exits 3 and shows no Active line when the engine context.engine selects cannot load", async () => {
    const s = sandbox();
    brokenUserPlugin(s.home);
    writeFileSync(join(s.cwd, "config.yaml"), "context:\n  engine: broken\n");
    const r = await runBin(["plugins", "list"], s);
    expect(r.code, r.stdout).toBe(3);
    expect(r.stdout).not.toContain("Active:");
    expect(r.stdout).toMatch(/^✖ +broken +user /m);
    expect(r.stderr.replace(/\s+/g, " ")).toContain('✖ the active engine "broken" cannot be loaded: plugin.yaml name "other" does not match its directory "broken"');
    const json = await runBin(["plugins", "list", "--json"], s);
    expect(json.code).toBe(3);
    expect((JSON.parse(json.stdout) as { problem: string }).problem).toMatch(/cannot be loaded/);
    writeFileSync(join(s.cwd, "config.yaml"), "context:\n  engine: ghost\n");
    const missing = await runBin(["plugins", "list"], s);
    expect(missing.code).toBe(3);
    expect(missing.stderr.replace(/\s+/g, " ")).toContain('the active engine "ghost" is not installed');
  });

  it("info shows one engine; an unknown name exits 2; a missing subcommand exits 2", async () => {
    const s = sandbox();
    const info = await runBin(["plugins", "info", "lcm"], s);
    expect(info.code, info.stderr).toBe(0);
    expect(info.stdout).toMatch(/^lcm$/m);
    expect(info.stdout).toMatch(/source: +bundled/);
    expect(info.stdout).toMatch(/path: +.*plugins[/\\]context_engine[/\\]lcm/);
    expect(info.stdout).toContain("lcm_grep");
    const unknown = await runBin(["plugins", "info", "nope"], s);
    expect(unknown.code, unknown.stderr).toBe(2);
    expect(unknown.stderr).toContain('unknown engine "nope"; found: compressor, lcm');
    const missing = await runBin(["plugins"], s);
    expect(missing.code, missing.stderr).toBe(2);
    expect(missing.stderr.replace(/\s+/g, " ")).toContain("plugins: missing subcommand");
  });

  it("replay skips a broken plugin by default, and naming it is a config error (exit 3) with the reason", async () => {
    const s = sandbox();
    brokenUserPlugin(s.home);
    const all = await runBin(["replay", join(FIXTURES, "debug-session.jsonl"), "--max-turns", "1", "--json", "--no-report"], s);
    expect(all.code, all.stderr).toBe(0);
    expect((JSON.parse(all.stdout) as { engines: string[] }).engines).toEqual(["compressor", "lcm"]);
    const r = await runBin(["replay", "--demo", "--engine", "broken", "--no-report"], s);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain('engine "broken" cannot be loaded: plugin.yaml name "other" does not match its directory "broken"');
  });
});

describe("context-engine config check (built binary)", () => {
  it("a valid config passes", async () => {
    const s = sandbox();
    writeFileSync(join(s.cwd, "config.yaml"), "context:\n  engine: lcm\nengines:\n  lcm:\n    fresh_tail_count: 16\n");
    const r = await runBin(["config", "check"], s);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`✔ ${join(s.cwd, "config.yaml")} is valid`);
  });

  it("prints each problem with file:line:column and exits 3", async () => {
    const s = sandbox();
    writeFileSync(join(s.cwd, "bad.yaml"), "model:\n  name: gpt-4o\n  base_url: ftp://example.com\n  contxt_length: 5\ncompression:\n  threshold: 7\n");
    const r = await runBin(["config", "check", "--config", "bad.yaml"], s);
    expect(r.code, r.stderr).toBe(3);
    const file = join(s.cwd, "bad.yaml");
    expect(r.stdout).toContain(`${file}:3:13: model.base_url: not an http(s) URL`);
    expect(r.stdout).toContain(`${file}:4:3: model.contxt_length: unknown key "contxt_length" (did you mean "context_length"?)`);
    expect(r.stdout).toContain(`${file}:6:14: compression.threshold:`);
    expect(r.stdout).toContain(`${file}: 3 errors`);
  });

  it("checks an engine's own section with its schema, and warns about sections for engines not installed", async () => {
    const s = sandbox();
    writeFileSync(join(s.cwd, "config.yaml"), "context:\n  engine: lcm\nengines:\n  lcm:\n    fresh_tail_count: -3\n  ghost: {}\n");
    const r = await runBin(["config", "check", "--json"], s);
    expect(r.code, r.stderr).toBe(3);
    const out = JSON.parse(r.stdout) as { valid: boolean; problems: Array<{ line: number; key: string; severity: string }> };
    expect(out.valid).toBe(false);
    expect(out.problems.map((p) => [p.line, p.key, p.severity])).toEqual([
      [5, "engines.lcm.fresh_tail_count", "error"],
      [6, "engines.ghost", "warning"],
    ]);
  });

  it("an unknown context.engine is reported at its line", async () => {
    const s = sandbox();
    writeFileSync(join(s.cwd, "config.yaml"), "# my config\ncontext:\n  engine: nope\n");
    const r = await runBin(["config", "check"], s);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toMatch(/config\.yaml:3:\d+: context\.engine: unknown engine "nope" \(expected one of compressor, lcm\)/);
  });

  it("reports every problem at once, sorted by line, engine problems included", async () => {
    const s = sandbox();
    writeFileSync(join(s.cwd, "config.yaml"), "compression:\n  threshold: 7\ncontext:\n  engine: nope\nmodel:\n  contxt_length: 5\n");
    const r = await runBin(["config", "check"], s);
    expect(r.code, r.stderr).toBe(3);
    const lines = r.stdout.split("\n").filter((l) => l.startsWith("✖"));
    expect(lines.map((l) => /config\.yaml:(\d+):/.exec(l)?.[1])).toEqual(["2", "4", "6"]);
    expect(lines[1]).toContain('context.engine: unknown engine "nope"');
    expect(r.stdout).toContain(": 3 errors");
  });

  it("a missing --config file exits 4; no config at all means defaults", async () => {
    const s = sandbox();
    const missing = await runBin(["config", "check", "--config", "absent.yaml"], s);
    expect(missing.code, missing.stderr).toBe(4);
    expect(missing.stderr.replace(/\s+/g, " ")).toContain(`no such config file: ${join(s.cwd, "absent.yaml")}`);
    const none = await runBin(["config", "check"], s);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toContain("No config.yaml found");
  });
});
