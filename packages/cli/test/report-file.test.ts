import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defaultReportDir, writeReportFile } from "../src/replay/report-file.js";
import { FIXTURES, runBin, sandbox } from "./helpers/run-bin.js";

const modeOf = (path: string) => statSync(path).mode & 0o777;
const savedTmp = process.env.TMPDIR;
afterEach(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
});

describe("replay reports are owner-only", () => {
  it("writes a new report 0600 in new folders 0700", () => {
    const base = mkdtempSync(join(tmpdir(), "ce-report-"));
    const file = join(base, "a", "b", "report.html");
    writeReportFile(file, "<html></html>");
    expect(readFileSync(file, "utf8")).toBe("<html></html>");
    expect(modeOf(file)).toBe(0o600);
    expect(modeOf(join(base, "a"))).toBe(0o700);
    expect(modeOf(join(base, "a", "b"))).toBe(0o700);
  });

  it("tightens an existing world-readable report and the default folder, not a folder the user made", () => {
    const base = mkdtempSync(join(tmpdir(), "ce-report-"));
    process.env.TMPDIR = base;
    const dir = defaultReportDir();
    expect(dir.startsWith(base)).toBe(true);
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    const old = join(dir, "replay-old.html");
    writeFileSync(old, "old", { mode: 0o644 });
    chmodSync(old, 0o644);
    writeReportFile(old, "new");
    expect(modeOf(old)).toBe(0o600);
    expect(modeOf(dir)).toBe(0o700);
    expect(readFileSync(old, "utf8")).toBe("new");

    const mine = join(base, "shared");
    mkdirSync(mine);
    chmodSync(mine, 0o755);
    writeReportFile(join(mine, "r.html"), "x");
    expect(modeOf(mine)).toBe(0o755);
    expect(modeOf(join(mine, "r.html"))).toBe(0o600);
  });

  it("`replay` without --report writes into the default folder owner-only", async () => {
    const s = sandbox();
    const tmp = join(s.cwd, "tmp");
    mkdirSync(tmp);
    const r = await runBin(["replay", join(FIXTURES, "debug-session.jsonl"), "-e", "compressor", "--max-turns", "1", "-n", "3000"], { cwd: s.cwd, env: { ...s.env, TMPDIR: tmp } });
    expect(r.code, r.stderr).toBe(0);
    const dir = join(tmp, "context-engine-reports");
    const [report] = readdirSync(dir);
    expect(report).toMatch(/^replay-.*\.html$/);
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(join(dir, report!))).toBe(0o600);
    expect(r.stdout).toContain(`HTML report: ${join(dir, report!)}`);
  });
});
