import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEstimator } from "@context-engine/core";
import { LcmEngine } from "@context-engine/lcm";
import { readSessions, resolveDataDir, type RecordedSession } from "@context-engine/sessions";
import { afterAll, describe, expect, it } from "vitest";
import { checkRecoverable, isLossless } from "../src/replay/recoverability.js";
import { runReplay } from "../src/replay/run.js";
import { FIXTURES, PACKAGE_DIR } from "./helpers/run-bin.js";

/**
 * LCM is lossless at every window: one session of every recorded format, replayed at
 * 4k, 6k, 8k and 16k, must leave every message recoverable through lcm_grep/lcm_expand.
 * (At 4k the oldest summaries drop out of the context and only search finds them: a
 * tool-call-only assistant message was once reported lost there.)
 */
const dataDir = resolveDataDir();
const WINDOWS = [4_000, 6_000, 8_000, 16_000];
/** Enough turns for several compactions at 4k, few enough to keep the file under a minute. */
const MAX_TURNS = 10;

const bundled: Array<[string, string]> = [
  ["openai-jsonl", join(FIXTURES, "debug-session.jsonl")],
  ["mini-swe-agent (bundled)", join(PACKAGE_DIR, "data", "psf__requests-6028.traj.json")],
];
const shared: Array<[string, string]> = dataDir
  ? [
      ["tau-bench", join(dataDir, "agent-traces", "tau-bench", "gpt-4o-airline.json")],
      ["openhands", join(dataDir, "agent-traces", "swe-gym-openhands", "sample_raw.json")],
      ["swe-agent", join(dataDir, "agent-traces", "swe-agent-function-calling", "marshmallow-code__marshmallow-1867.function_calling_replace.traj")],
      ["locomo", join(dataDir, "locomo", "locomo7.json")],
    ]
  : [];
if (!dataDir) console.warn("[recoverable-formats] shared/data not found (set CONTEXT_ENGINE_DATA_DIR): only the bundled sessions are replayed");

const sessionCache = new Map<string, RecordedSession>();
async function firstSession(path: string): Promise<RecordedSession> {
  let s = sessionCache.get(path);
  if (!s) sessionCache.set(path, (s = (await readSessions(path, { limit: 1 }))[0]!));
  return s;
}

const work = mkdtempSync(join(tmpdir(), "ce-recoverable-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("LCM keeps every message recoverable, every recorded format, small to large windows", () => {
  const cases = [...bundled, ...shared].flatMap(([format, path]) => WINDOWS.map((contextLength) => ({ format, path, contextLength })));
  it.each(cases)("$format at $contextLength tokens", async ({ path, contextLength }) => {
    const session = await firstSession(path);
    const report = await runReplay({
      sessions: [session],
      engines: ["lcm"],
      createEngine: async (_name, ctx) => new LcmEngine({ contextLength: ctx.contextLength, dataDir: ctx.dataDir }),
      contextLength,
      maxTurns: MAX_TURNS,
      counter: createEstimator(),
      dataDir: mkdtempSync(join(work, "run-")),
      isLossless,
      checkRecoverable,
    });
    const run = report.sessions[0]!.runs[0]!;
    const rec = run.recoverability!;
    // Name what is lost, not only how many.
    expect(rec.missing, `unrecoverable: ${rec.missing.map((m) => `#${m.index} ${m.role}: ${m.preview}`).join("; ")}`).toEqual([]);
    expect(rec.recovered).toBe(rec.checked);
    // KNOWN GAP (see replay-budget.test.ts): at 4k an LCM selection may fall open to the unselected request.
    const fellOpen = (e: string) => contextLength === 4_000 && /selectContext threw: the selection does not fit the context window/.test(e);
    expect(run.errors.filter((e) => !fellOpen(e))).toEqual([]);
  });
});
