import { defaultTokenCounter, type Message } from "@context-engine/core";
import { diffCompaction } from "../../src/replay/compaction-detail.js";
import type { EvidenceRecall } from "../../src/replay/evidence.js";
import { MetricsCollector } from "../../src/replay/metrics.js";
import { computeTotals, reportOk, type ReplayReport } from "../../src/replay/report.js";

const count = (m: Message) => defaultTokenCounter.countMessage(m);

/** The summary text each synthetic compaction puts in; tests look for it on the page. */
export const summaryText = (engine: string, n: number) => `[${engine} summary ${n}] the user stepped through the plan <ok> & kept going`;

/**
 * One engine's run over 30 requests with a real MetricsCollector: a
 * compaction every `compactEvery` requests, each with the detail the replay
 * records (what it replaced, the summary it put in).
 */
export function syntheticRun(engine: string, compactEvery: number, lossless: boolean, evidence?: EvidenceRecall) {
  const c = new MetricsCollector({ contextLength: 2000, countMessage: count });
  const msgs: Message[] = [{ role: "system", content: "system <prompt> & \"quotes\"" }];
  let n = 0;
  for (let i = 1; i <= 30; i++) {
    msgs.push({ role: "user", content: `step ${i} `.repeat(20) });
    if (i % compactEvery === 0) {
      const before = [...msgs];
      msgs.splice(1, msgs.length - 2, { role: "user", content: summaryText(engine, ++n) });
      c.observe({ type: "compaction", turn: i, outcome: "committed", durationMs: 4 + i, beforeTokens: 1800, afterTokens: 400, trigger: "pre_api", detail: diffCompaction(before, msgs, count) });
    }
    c.observe({ type: "request", turn: i, messages: [...msgs] });
  }
  return c.finish({
    engine,
    sessionId: "demo <session>",
    thresholdTokens: 1500,
    lossless,
    recoverability: lossless ? { method: "test", checked: 61, recovered: 61, missing: [] } : null,
    ...(evidence ? { evidence } : {}),
    wallMs: 20,
  });
}

export function syntheticReport(options: { longSessionName?: boolean } = {}): ReplayReport {
  const engines = ["compressor", "lcm"];
  const id = options.longSessionName ? `demo <session> ${"with-a-very-long-unbroken-name-".repeat(4)}` : "demo <session>";
  const sessions = [
    {
      id,
      format: "locomo",
      source: { path: `/data/${"deeply/nested/".repeat(8)}x.json`, license: "MIT" },
      messages: 61,
      turns: 30,
      runs: [
        syntheticRun("compressor", 8, false, { questions: 12, evidenceTurns: 20, inContext: 9, questionsInContext: 4, recoverable: null, questionsRecoverable: null }),
        syntheticRun("lcm", 11, true, { questions: 12, evidenceTurns: 20, inContext: 11, questionsInContext: 5, recoverable: 20, questionsRecoverable: 12 }),
      ],
    },
  ];
  return { schema: "context-engine/replay-report@1", generatedAt: new Date(0).toISOString(), cli: { version: "0.0.0-test" }, contextLength: 2000, engines, sessions, totals: computeTotals(engines, sessions), ok: reportOk(sessions) };
}
