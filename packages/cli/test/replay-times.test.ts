import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEstimator } from "@context-engine/core";
import { LcmEngine } from "@context-engine/lcm";
import { readSessions, type RecordedSession } from "@context-engine/sessions";
import { describe, expect, it } from "vitest";
import { checkRecoverable, isLossless } from "../src/replay/recoverability.js";
import { recordedTimes, replayClock } from "../src/replay/compaction-detail.js";
import { runReplay } from "../src/replay/run.js";
import { renderHtmlReport } from "../src/replay/render-html.js";
import { FIXTURES } from "./helpers/run-bin.js";

/** 4 March 2021, 09:00 UTC: a day no replay of this test can run on. */
const RECORDED_START = Date.UTC(2021, 2, 4, 9, 0);
const MINUTE = 60_000;

/** The bundled debug session with a recorded time per message, one minute apart. */
async function timedSession(): Promise<RecordedSession> {
  const [session] = await readSessions(join(FIXTURES, "debug-session.jsonl"));
  return { ...session!, times: session!.messages.map((_, i) => RECORDED_START + i * MINUTE) };
}

/** The `time="from..to"` attributes of LCM's rendered summaries in a text. */
function summaryTimes(text: string): Array<{ from: number; to: number }> {
  return [...text.matchAll(/time="([0-9T:-]+Z)\.\.([0-9T:-]+Z)"/g)].map((m) => ({ from: Date.parse(m[1]!), to: Date.parse(m[2]!) }));
}

describe("a replay dates LCM's summaries by the recording's times", () => {
  it("every summary LCM puts into the context spans recorded times, and the report shows them", async () => {
    const session = await timedSession();
    const lastRecorded = RECORDED_START + (session.messages.length - 1) * MINUTE;
    const report = await runReplay({
      sessions: [session],
      engines: ["lcm"],
      createEngine: async (_name, ctx) => new LcmEngine({ contextLength: ctx.contextLength, dataDir: ctx.dataDir }),
      contextLength: 3000,
      counter: createEstimator(),
      dataDir: mkdtempSync(join(tmpdir(), "ce-replay-times-")),
      isLossless,
      checkRecoverable,
    });
    const run = report.sessions[0]!.runs[0]!;
    const committed = run.compactions.filter((c) => c.outcome === "committed");
    expect(committed.length).toBeGreaterThan(0);
    const spans = committed.flatMap((c) => c.detail!.added.flatMap((m) => summaryTimes(m.text)));
    expect(spans.length).toBeGreaterThan(0);
    for (const { from, to } of spans) {
      // Minute precision: the recording's first to last minute, never the replay's clock.
      expect(from).toBeGreaterThanOrEqual(RECORDED_START);
      expect(to).toBeLessThanOrEqual(lastRecorded);
      expect(from).toBeLessThanOrEqual(to);
    }
    // Later summaries cover later recorded minutes: each message kept its own time.
    expect(new Set(spans.map((s) => s.to)).size).toBeGreaterThan(1);
    const html = renderHtmlReport(report);
    // Each summary in the report is labelled with when its messages were said, by the recording.
    const labels = [...html.matchAll(/<p class="summary-label meta">([^<]*)<\/p>/g)].map((m) => m[1]!);
    expect(labels.length).toBeGreaterThan(0);
    for (const label of labels) expect(label).toMatch(/ · said 4 March 2021, 09:\d\d(–09:\d\d)? UTC$/);
  }, 60_000);
});

describe("the replay's clock for the host", () => {
  it("a message the recording left undated takes the last recorded time before it, or the recording's first", () => {
    // mini-swe-agent dates only the model's answers: the prompt before the first answer has no time.
    const messages = [
      { role: "user" as const, content: "the task" },
      { role: "assistant" as const, content: "first look" },
      { role: "user" as const, content: "observation" },
      { role: "assistant" as const, content: "done" },
    ];
    const times = [null, RECORDED_START, null, RECORDED_START + MINUTE];
    const clock = replayClock(recordedTimes(messages, times), times);
    expect(messages.map((m) => clock({ ...m }))).toEqual([RECORDED_START, RECORDED_START, RECORDED_START, RECORDED_START + MINUTE]);
    // A message the replay made itself (a closing answer the recording lacks) stands at the last time.
    expect(clock({ role: "assistant", content: "(replay: the recording ends here)" })).toBe(RECORDED_START + MINUTE);
    expect(replayClock(recordedTimes(messages, undefined), undefined)(messages[0]!)).toBeNull();
  });
});
