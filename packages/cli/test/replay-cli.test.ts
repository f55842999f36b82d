import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { resolveDataDir } from "@context-engine/sessions";
import { describe, expect, it } from "vitest";
import type { ReplayReport } from "../src/replay/report.js";
import { hasChromium, renderReport } from "./helpers/chromium.js";
import { FIXTURES, runBin, sandbox } from "./helpers/run-bin.js";

const SESSION = join(FIXTURES, "debug-session.jsonl");
const dataDir = resolveDataDir();
if (!dataDir) process.stderr.write("\n[cli tests] NOTICE: shared data not found (set CONTEXT_ENGINE_DATA_DIR) — skipping replays of the real recorded formats.\n\n");

/** The report the first test writes; the Chromium test opens it. */
let reportFile: string | null = null;

describe("context-engine replay (built binary)", () => {
  it("compares compressor and lcm on a recorded session: table on stdout, report path, exit 0", async () => {
    const s = sandbox();
    const r = await runBin(["replay", SESSION, "--engine", "compressor,lcm", "--context-length", "3000", "--report", "out/report.html"], s);
    expect(r.stderr).not.toContain("error");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^debug-session \(openai-jsonl, 21 messages, 3 turns, context length 3,000\)$/m);
    const compressor = r.stdout.match(/^compressor +(\d+) +([\d,]+) +([\d,]+) .* (\d+) +([\d.]+%) +n\/a \(lossy\)$/m);
    const lcm = r.stdout.match(/^lcm +(\d+) +.* (\d+) +([\d.]+%) +(\d+)\/(\d+)$/m);
    expect(compressor, r.stdout).not.toBeNull();
    expect(lcm, r.stdout).not.toBeNull();
    expect(Number(compressor![1])).toBe(10); // 10 recorded assistant answers
    expect(Number(compressor![4])).toBe(0); // over budget
    expect(lcm![4]).toBe(lcm![5]); // every message recoverable
    expect(r.stdout).toContain("✔ every request fit the context length; every message is still recoverable");
    expect(r.stdout).toContain(`HTML report: ${join(s.cwd, "out/report.html")}`);
    expect(existsSync(join(s.cwd, "out/report.html"))).toBe(true);
    reportFile = join(s.cwd, "out/report.html");
    // The progress bar is for terminals; a pipe gets one line per finished run.
    expect(r.stderr).toMatch(/replayed debug-session with compressor: 10 requests/);
    expect(r.stderr).not.toContain("\r");
  });

  it("--json prints the report only, with per-request metrics computed from the host's events", async () => {
    const s = sandbox();
    const r = await runBin(["replay", SESSION, "-e", "compressor", "-e", "lcm", "-n", "3k", "--json", "--no-report"], s);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as ReplayReport;
    expect(report.schema).toBe("context-engine/replay-report@1");
    expect(report.engines).toEqual(["compressor", "lcm"]);
    expect(report.contextLength).toBe(3000);
    expect(report.ok).toBe(true);
    expect(report.reportPath).toBeUndefined();
    const [session] = report.sessions;
    expect(session!.turns).toBe(3);
    for (const run of session!.runs) {
      expect(run.summary.requests).toBe(10);
      expect(run.summary.overBudget).toBe(0);
      expect(run.requests.every((q) => q.tokens <= 3000)).toBe(true);
      expect(run.summary.peakContext).toBe(Math.max(...run.requests.map((q) => q.tokens)));
      expect(run.summary.compactions).toBeGreaterThan(0); // 3,000 tokens forces compaction on this session
      expect(run.compactions.filter((c) => c.outcome === "committed").every((c) => c.afterTokens! < c.beforeTokens!)).toBe(true);
      expect(run.requests[0]!.prefixReuse).toBeNull();
      expect(run.requests[1]!.prefixReuse).toBe(1); // nothing compacted yet: the second request extends the first
    }
    const lcm = session!.runs.find((x) => x.engine === "lcm")!;
    expect(lcm.lossless).toBe(true);
    expect(lcm.recoverability!.checked).toBe(21);
    expect(lcm.recoverability!.recovered).toBe(21);
    expect(lcm.recoverability!.via!.expandedSummaries + lcm.recoverability!.via!.searched).toBeGreaterThan(0);
    expect(session!.runs.find((x) => x.engine === "compressor")!.recoverability).toBeNull();
  });

  it("--max-turns replays only the first turns", async () => {
    const s = sandbox();
    const r = await runBin(["replay", SESSION, "-e", "compressor", "--max-turns", "1", "--json", "--no-report"], s);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as ReplayReport;
    expect(report.sessions[0]!.turns).toBe(1);
    expect(report.sessions[0]!.runs[0]!.summary.requests).toBe(5);
  });

  it("--model selects compression.model_thresholds from config.yaml for every engine", async () => {
    const s = sandbox();
    writeFileSync(join(s.cwd, "config.yaml"), "compression:\n  model_thresholds:\n    demo-model: 0.5\n");
    const threshold = async (model: string) => {
      const r = await runBin(["replay", SESSION, "-e", "compressor,lcm", "--max-turns", "1", "-n", "3000", "-m", model, "--json", "--no-report"], s);
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as ReplayReport).sessions[0]!.runs.map((x) => x.thresholdTokens);
    };
    expect(await threshold("demo-model")).toEqual([1500, 1500]);
    expect(await threshold("another-model")).toEqual([2250, 2250]);
  });

  it("a window smaller than the system prompt fails the budget check with exit 6 (anything larger is made to fit), with no chat advice", async () => {
    const s = sandbox();
    const r = await runBin(["replay", SESSION, "-e", "compressor", "-n", "60", "--no-report"], s);
    expect(r.code, r.stderr).toBe(6);
    expect(r.stdout).toMatch(/Checks failed:/);
    expect(r.stdout).toMatch(/exceeded the 60-token context length/);
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/\/compress|\/new\b/);
  });

  it("says which window it replays at and where it came from, config.yaml's included", async () => {
    const s = sandbox();
    writeFileSync(join(s.cwd, "config.yaml"), "model:\n  context_length: 9000\n");
    const fromConfig = await runBin(["replay", SESSION, "-e", "compressor", "--no-report", "--no-progress"], s);
    expect(fromConfig.code, fromConfig.stderr).toBe(0);
    expect(fromConfig.stderr).toMatch(/context length 9,000 tokens: model\.context_length in .*config\.yaml, the chat model's window/);
    const fromFlag = await runBin(["replay", SESSION, "-e", "compressor", "-n", "7k", "--no-report", "--no-progress"], s);
    expect(fromFlag.stderr).toMatch(/context length 7,000 tokens: from --context-length/);
  });

  it.skipIf(!hasChromium)("the HTML report renders in Chromium with one series per engine and no console errors", async () => {
    // Its own replay, so the check does not hang on the first test passing: a failed check (exit 6) still writes the report.
    let file = reportFile;
    if (!file) {
      const s = sandbox();
      const r = await runBin(["replay", SESSION, "--engine", "compressor,lcm", "--context-length", "3000", "--report", "out/report.html"], s);
      expect([0, 6], r.stderr).toContain(r.code);
      file = join(s.cwd, "out/report.html");
    }
    const page = await renderReport(file);
    expect(page.errors).toEqual([]);
    expect(page.requests).toEqual([]);
    const context = page.charts.find((c) => c.kind === "context")!;
    expect(context.engines).toEqual(["compressor", "lcm"]);
    expect(context.drawn).toBe(true);
    expect(context.width).toBeGreaterThan(500);
    expect(context.points[0]).toBe(10); // compressor: the 10 recorded answers
    for (const points of context.points) expect(points).toBeGreaterThan(0);
    expect(context.markers).toBeGreaterThan(0); // compaction points
    expect(page.charts.find((c) => c.kind === "prefix-reuse")!.engines).toEqual(["compressor", "lcm"]);
  }, 60_000);

  it.skipIf(!dataDir)("reads the real recorded formats: tau-bench, OpenHands and SWE-agent sessions", async () => {
    const s = sandbox();
    const traces = join(dataDir!, "agent-traces");
    for (const [file, format] of [
      ["tau-bench/gpt-4o-airline.json", "tau-bench"],
      ["swe-gym-openhands/sample_raw.json", "openhands"],
      ["swe-agent-function-calling/marshmallow-code__marshmallow-1867.function_calling_replace.traj", "swe-agent"],
    ] as const) {
      const r = await runBin(["replay", join(traces, file), "-e", "compressor", "--limit", "1", "--max-turns", "3", "-n", "16k", "--json", "--no-report"], s);
      expect(r.code, `${file}: ${r.stderr}`).toBe(0);
      const report = JSON.parse(r.stdout) as ReplayReport;
      expect(report.sessions).toHaveLength(1);
      expect(report.sessions[0]!.format).toBe(format);
      expect(report.sessions[0]!.runs[0]!.summary.requests).toBeGreaterThan(0);
    }
  }, 60_000);
});

describe("the bundled demo session", () => {
  it("is the byte-for-byte copy SOURCES.md names, with its licence", async () => {
    const { createHash } = await import("node:crypto");
    const dir = join(FIXTURES, "..", "..", "data");
    const sources = readFileSync(join(dir, "SOURCES.md"), "utf8");
    const hash = createHash("sha256").update(readFileSync(join(dir, "psf__requests-6028.traj.json"))).digest("hex");
    expect(sources).toContain(hash);
    expect(sources).toContain("gruckion/mini-swe-agent");
    expect(readFileSync(join(dir, "LICENSE-mini-swe-agent.md"), "utf8")).toMatch(/^MIT License/);
  });
});

describe("replay output people read (built binary)", () => {
  it("fits a 100- and a 60-column terminal, and shows no raw engine log records", async () => {
    const s = sandbox();
    for (const columns of ["100", "60"]) {
      const r = await runBin(["replay", "--demo", "-n", "4k", "--max-turns", "1", "--no-report"], { ...s, env: { ...s.env, COLUMNS: columns } });
      expect(r.code, r.stderr).toBe(0);
      for (const line of r.stdout.split("\n")) expect(line.length, line).toBeLessThanOrEqual(Number(columns));
      expect(r.stderr).not.toMatch(/\[warn\]|\{"/);
      // The compressor fits every request inside compress now (no request-only trim, so no warning at 4k);
      // whatever an engine warns is a plain line, never a raw log record.
      expect(r.stderr).toMatch(/replayed \S+ with compressor: \d+ requests/);
    }
  });
});
