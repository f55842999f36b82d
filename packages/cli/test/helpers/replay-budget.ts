import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ContextCompressor } from "@context-engine/compressor";
import { createEstimator, type ContextEngine } from "@context-engine/core";
import { LcmEngine } from "@context-engine/lcm";
import { readSessions, resolveDataDir, type RecordedSession } from "@context-engine/sessions";
import { afterAll, describe, expect, it } from "vitest";
import { checkRecoverable, isLossless } from "../../src/replay/recoverability.js";
import { runReplay } from "../../src/replay/run.js";

/**
 * A turn never fails for size alone, and LCM loses nothing: every recorded agent session of
 * shared/data is replayed through the real host with both bundled engines at 16k, 8k, 6k and 4k
 * windows; no request may exceed the window, no turn fail, and every message the run put into the
 * conversation must still be recoverable from LCM (in the context, or through lcm_grep/lcm_expand).
 * The sessions are what they are (huge tool outputs, long pastes, long system prompts, empty tool
 * results); the engines must make them fit.
 *
 * By default (CI) a sample: at 4k and 6k every coding-agent session and every 10th tau-bench one, at
 * 8k and 16k every other mini-swe-agent session and every 20th tau-bench one.
 * REPLAY_BUDGET_SESSIONS=all replays every session at every window (slow: run it before a release).
 */
export const dataDir = resolveDataDir();
const tmp = mkdtempSync(join(tmpdir(), "ce-replay-budget-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The small windows are where messages get lost and requests overflow: they get the larger sample. */
async function loadSessions(window: number): Promise<RecordedSession[]> {
  const root = `${dataDir}/agent-traces`;
  const all = process.env.REPLAY_BUDGET_SESSIONS === "all";
  const small = window <= 6_000;
  const tau = await readSessions(`${root}/tau-bench`);
  const coding = await readSessions(`${root}/mini-swe-agent-gemini3pro`);
  return [
    ...(all || small ? coding : coding.filter((_, i) => i % 2 === 0)),
    ...(await readSessions(`${root}/swe-gym-openhands`)),
    ...(await readSessions(`${root}/swe-agent-function-calling`)),
    ...(all ? tau : tau.filter((_, i) => i % (small ? 10 : 20) === 0)),
  ];
}

const build = (name: string, ctx: { contextLength: number; model: string; dataDir: string }): ContextEngine =>
  name === "lcm"
    ? new LcmEngine({ contextLength: ctx.contextLength, model: ctx.model, dataDir: ctx.dataDir })
    : new ContextCompressor({ contextLength: ctx.contextLength, model: ctx.model });

/** One describe per file for the windows given, so vitest runs the windows' files in parallel. */
export function describeReplayBudget(windows: readonly number[]): void {
  describe.skipIf(!dataDir)("no turn fails for size and LCM loses nothing: every recorded agent session, both engines", () => {
    for (const window of windows) {
      it(`${window / 1000}k window: 0 requests over budget, 0 failed turns, every message recoverable`, async () => {
        const sessions = await loadSessions(window);
        expect(sessions.length).toBeGreaterThan(10);
        const report = await runReplay({
          sessions,
          engines: ["compressor", "lcm"],
          createEngine: async (name, ctx) => build(name, ctx),
          contextLength: window,
          counter: createEstimator(),
          dataDir: join(tmp, `w${window}`),
          isLossless,
          checkRecoverable,
        });
        const problems = report.sessions.flatMap((s) => s.runs.flatMap((r) => r.errors.map((e) => `${r.engine} ${s.id}: ${e}`)));
        const lcm = report.totals.find((t) => t.engine === "lcm")!;
        console.info(
          `[replay-budget] ${window} tokens, ${sessions.length} sessions: ` +
            report.totals.map((t) => `${t.engine} ${t.requests} requests, ${t.overBudget} over budget, ${t.errors} errors`).join("; ") +
            `; lcm recoverable ${lcm.recoverable?.recovered}/${lcm.recoverable?.checked}`,
        );
        expect(problems).toEqual([]);
        for (const t of report.totals) {
          expect(t.requests).toBeGreaterThan(0);
          expect(t.overBudget).toBe(0);
        }
        const runs = report.sessions.flatMap((s) => s.runs.filter((r) => r.engine === "lcm").map((r) => ({ id: s.id, rec: r.recoverability })));
        expect(runs.filter((r) => !r.rec || r.rec.recovered !== r.rec.checked).map((r) => `${r.id}: ${r.rec?.recovered}/${r.rec?.checked}`)).toEqual([]);
      }, 1_200_000);
    }
  });
}
