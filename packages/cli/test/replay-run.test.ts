import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ContextCompressor } from "@context-engine/compressor";
import { createEstimator, type ContextEngine } from "@context-engine/core";
import { LcmEngine } from "@context-engine/lcm";
import { readSessions } from "@context-engine/sessions";
import { describe, expect, it } from "vitest";
import { checkRecoverable, isLossless } from "../src/replay/recoverability.js";
import { runReplay, type EngineFactory } from "../src/replay/run.js";
import { FIXTURES } from "./helpers/run-bin.js";

const sessions = await readSessions(join(FIXTURES, "debug-session.jsonl"));

async function replay(createEngine: EngineFactory, engines: string[], contextLength = 3000) {
  return runReplay({
    sessions,
    engines,
    createEngine,
    contextLength,
    counter: createEstimator(),
    dataDir: mkdtempSync(join(tmpdir(), "ce-replay-run-")),
    isLossless,
    checkRecoverable,
  });
}

describe("runReplay (in process)", () => {
  it("the lossless check catches an engine that claims to be lossless but drops messages", async () => {
    const report = await replay(async (_name, ctx) => {
      const engine = new ContextCompressor({ contextLength: ctx.contextLength, dataDir: ctx.dataDir });
      (engine as unknown as { lossless: boolean }).lossless = true;
      return engine;
    }, ["claims-lossless"]);
    const run = report.sessions[0]!.runs[0]!;
    expect(run.summary.compactions).toBeGreaterThan(0);
    expect(run.lossless).toBe(true);
    const rec = run.recoverability!;
    expect(rec.checked).toBe(21);
    expect(rec.recovered).toBeLessThan(rec.checked);
    expect(rec.missing.length).toBeGreaterThan(0);
    expect(run.errors.join("\n")).toMatch(/message\(s\) are no longer recoverable/);
    expect(report.ok).toBe(false);
  });

  it("LCM keeps every message recoverable through its tools, also on a window that forces several compactions", async () => {
    const report = await replay(async (_name, ctx) => new LcmEngine({ contextLength: ctx.contextLength, dataDir: ctx.dataDir }), ["lcm"], 3000);
    const run = report.sessions[0]!.runs[0]!;
    expect(run.summary.compactions).toBeGreaterThan(1);
    expect(run.summary.overBudget).toBe(0);
    expect(run.recoverability!.recovered).toBe(21);
    expect(run.recoverability!.via!.expandedSummaries).toBeGreaterThan(0);
    expect(report.ok).toBe(true);
  });

  it("every message can also be found by lcm_grep and expanded, with no context to start from", async () => {
    let result: Awaited<ReturnType<typeof checkRecoverable>> = null;
    await runReplay({
      sessions,
      engines: ["lcm"],
      createEngine: async (_name, ctx) => new LcmEngine({ contextLength: ctx.contextLength, dataDir: ctx.dataDir }),
      contextLength: 3000,
      counter: createEstimator(),
      dataDir: mkdtempSync(join(tmpdir(), "ce-replay-run-")),
      isLossless,
      // Hide the context: every message must come back through search alone.
      checkRecoverable: async (a) => (result = await checkRecoverable({ ...a, final: [], lastRequest: [] })),
    });
    expect(result).not.toBeNull();
    // LCM keeps the leading system prompt in the head, not in its history store: with the context
    // hidden, that one message is (rightly) not found; all 20 others come back through search.
    expect(result!.missing.map((m) => m.role)).toEqual(["system"]);
    expect(result!.via).toEqual({ inContext: 0, expandedSummaries: 0, searched: 20 });
  });

  it("an engine hook that throws fails the run's checks (the host carried on fail-open)", async () => {
    const report = await replay(async (_name, ctx) => {
      const engine: ContextEngine = new ContextCompressor({ contextLength: ctx.contextLength });
      engine.onTurnComplete = () => {
        throw new Error("index unavailable");
      };
      return engine;
    }, ["flaky"]);
    const run = report.sessions[0]!.runs[0]!;
    expect(run.summary.requests).toBe(10); // every turn still completed
    expect(run.errors).toEqual(["engine hook onTurnComplete threw: index unavailable (×3)"]);
  });

  it("an engine that cannot be built is reported, and the other engines still run", async () => {
    const report = await replay(async (name, ctx) => {
      if (name === "broken") throw new Error("missing native module");
      return new ContextCompressor({ contextLength: ctx.contextLength });
    }, ["broken", "compressor"]);
    const [broken, ok] = report.sessions[0]!.runs;
    expect(broken!.errors).toEqual(["the engine could not be created: missing native module"]);
    expect(ok!.summary.requests).toBe(10);
    expect(ok!.errors).toEqual([]);
  });
});
