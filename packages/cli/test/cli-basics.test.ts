import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_DIR, runBin, sandbox } from "./helpers/run-bin.js";

const version = (JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8")) as { version: string }).version;
const NO_STACK = /^\s+at .+\(.*:\d+:\d+\)$/m;

describe("context-engine (built binary): usage, help, errors", () => {
  it("--version prints the package version on stdout", async () => {
    const s = sandbox();
    const r = await runBin(["--version"], s);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(version);
    expect(r.stderr).toBe("");
  });

  it("--help lists the commands and exit codes; no command is a usage error on stderr", async () => {
    const s = sandbox();
    const help = await runBin(["--help"], s);
    expect(help.code, help.stderr).toBe(0);
    for (const cmd of ["replay", "chat", "plugins list", "plugins info", "config check", "lcm list", "lcm export|import", "new-engine"]) expect(help.stdout).toContain(cmd);
    expect(help.stdout).toMatch(/6 replay check failed/);
    const bare = await runBin([], s);
    expect(bare.code, bare.stderr).toBe(2);
    expect(bare.stdout).toBe("");
    expect(bare.stderr).toContain("Usage:");
    const replayHelp = await runBin(["replay", "--help"], s);
    expect(replayHelp.code, replayHelp.stderr).toBe(0);
    expect(replayHelp.stdout).toContain("--context-length");
    expect((await runBin(["help", "chat"], s)).stdout).toContain("/compress [focus]");
  });

  it("an unknown command or option exits 2 with a hint and no stack trace", async () => {
    const s = sandbox();
    const cmd = await runBin(["replya"], s);
    expect(cmd.code, cmd.stderr).toBe(2);
    expect(cmd.stderr).toContain('unknown command "replya"');
    expect(cmd.stderr).toContain("Did you mean 'replay'?");
    const opt = await runBin(["replay", "--bogus", "x.jsonl"], s);
    expect(opt.code, opt.stderr).toBe(2);
    expect(opt.stderr).toContain("replay: Unknown option '--bogus'");
    expect(opt.stderr).toContain("context-engine replay --help");
    const typo = await runBin(["replay", "--context-lenght", "4k", "x.jsonl"], s);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("Did you mean --context-length?");
    const resumeTypo = await runBin(["chat", "--resme", "abc"], s);
    expect(resumeTypo.stderr).toContain("Did you mean --resume?");
    const helpHelp = await runBin(["help", "--help"], s);
    expect(helpHelp.code, helpHelp.stderr).toBe(0);
    expect(helpHelp.stdout).toContain("context-engine");
    const bad = await runBin(["replay", "--context-length", "lots", "x.jsonl"], s);
    expect(bad.code, bad.stderr).toBe(2);
    expect(bad.stderr).toContain('--context-length: expected a positive whole number (e.g. 16000 or 16k), got "lots"');
    for (const r of [cmd, opt, bad]) {
      expect(r.stdout).toBe("");
      expect(r.stderr).not.toMatch(NO_STACK);
    }
  });

  it("a missing session file exits 4 naming the path", async () => {
    const s = sandbox();
    const r = await runBin(["replay", "nowhere/session.jsonl"], s);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(`no such file or folder: ${join(s.cwd, "nowhere/session.jsonl")}`);
    expect(r.stderr).not.toMatch(NO_STACK);
  });

  it("a file that is not a recorded session exits 4 saying what was expected", async () => {
    const s = sandbox();
    writeFileSync(join(s.cwd, "notes.json"), JSON.stringify({ hello: "world" }));
    const r = await runBin(["replay", "notes.json"], s);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/notes\.json: not a recognised recorded-session format/);
    expect(r.stderr).not.toMatch(NO_STACK);
  });

  it("a folder without any recorded session exits 4", async () => {
    const s = sandbox();
    mkdirSync(join(s.cwd, "empty"));
    writeFileSync(join(s.cwd, "empty", "README.md"), "nothing here");
    const r = await runBin(["replay", "empty"], s);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(`no recorded sessions found in ${join(s.cwd, "empty")}`);
  });

  it("an unknown engine exits 2 and lists the available ones", async () => {
    const s = sandbox();
    const r = await runBin(["replay", "--demo", "--engine", "compressor,nope"], s);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/unknown engine "nope"; available: compressor, lcm/);
    expect(r.stderr).toContain("context-engine plugins list");
  });

  it("an invalid config.yaml stops a replay with exit 3 and the problem's line", async () => {
    const s = sandbox();
    writeFileSync(join(s.cwd, "config.yaml"), "context:\n  engine: compressor\ncompression:\n  threshold: 7\n");
    const r = await runBin(["replay", "--demo"], s);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(`${join(s.cwd, "config.yaml")}:4`);
    expect(r.stderr).toMatch(/compression\.threshold/);
    expect(r.stderr).toContain("context-engine config check");
    expect(r.stderr).not.toMatch(NO_STACK);
  });
});
