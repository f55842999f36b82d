import { defaultTokenCounter, type Message } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { createPalette } from "../src/format/color.js";
import { MetricsCollector } from "../src/replay/metrics.js";
import { renderHtmlReport } from "../src/replay/render-html.js";
import { renderReplayTables } from "../src/replay/render-table.js";
import { computeTotals, reportOk, type ReplayReport } from "../src/replay/report.js";
import { niceTicks } from "../src/replay/svg-chart.js";

const count = (m: Message) => defaultTokenCounter.countMessage(m);

function syntheticRun(engine: string, compactEvery: number, lossless: boolean) {
  const c = new MetricsCollector({ contextLength: 2000, countMessage: count });
  const msgs: Message[] = [{ role: "system", content: "system <prompt> & \"quotes\"" }];
  for (let i = 1; i <= 30; i++) {
    msgs.push({ role: "user", content: `step ${i} `.repeat(20) });
    if (i % compactEvery === 0) {
      c.observe({ type: "compaction", turn: i, outcome: "committed", durationMs: 4 + i, beforeTokens: 1800, afterTokens: 400, trigger: "pre_api" });
      msgs.splice(1, msgs.length - 2, { role: "user", content: "[summary]" });
    }
    c.observe({ type: "request", turn: i, messages: [...msgs] });
  }
  return c.finish({
    engine,
    sessionId: "demo <session>",
    thresholdTokens: 1500,
    lossless,
    recoverability: lossless ? { method: "test", checked: 61, recovered: 61, missing: [] } : null,
    wallMs: 20,
  });
}

function syntheticReport(): ReplayReport {
  const engines = ["compressor", "lcm"];
  const sessions = [
    { id: "demo <session>", format: "mini-swe-agent", source: { path: "/data/x.json", license: "MIT" }, messages: 61, turns: 30, runs: [syntheticRun("compressor", 8, false), syntheticRun("lcm", 11, true)] },
  ];
  return { schema: "context-engine/replay-report@1", generatedAt: new Date(0).toISOString(), cli: { version: "0.0.0-test" }, contextLength: 2000, engines, sessions, totals: computeTotals(engines, sessions), ok: reportOk(sessions) };
}

describe("report rendering", () => {
  it("niceTicks covers the range with round steps", () => {
    expect(niceTicks(0, 100)).toEqual([0, 20, 40, 60, 80, 100]);
    expect(niceTicks(0, 17_500)).toEqual([0, 5000, 10000, 15000]);
    expect(niceTicks(0, 17_500, 6, true)).toEqual([0, 5000, 10000, 15000, 20000]);
  });

  it("the terminal table has one row per engine and says the checks passed", () => {
    const text = renderReplayTables(syntheticReport(), createPalette(false));
    expect(text).toMatch(/^compressor\s+30\s/m);
    expect(text).toMatch(/^lcm\s+30\s.*61\/61$/m);
    expect(text).toMatch(/n\/a \(lossy\)/);
    expect(text).toMatch(/every request fit the context length/);
  });

  it("the HTML is self-contained and escapes session text", () => {
    const html = renderHtmlReport(syntheticReport());
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
    expect(html).toContain("demo &lt;session&gt;");
    expect(html.match(/<g class="series" data-engine="lcm">/g)).toHaveLength(2);
  });

  it("draws one series per engine with a marker per compaction", () => {
    const html = renderHtmlReport(syntheticReport());
    const context = html.slice(html.indexOf('data-chart="context"'), html.indexOf('data-chart="prefix-reuse"'));
    expect([...context.matchAll(/<g class="series" data-engine="([^"]+)">/g)].map((m) => m[1])).toEqual(["compressor", "lcm"]);
    // 30 requests: compressor compacts every 8th (3), lcm every 11th (2).
    expect(context.match(/<path class="marker"/g)).toHaveLength(5);
    expect(context).toContain("context length 2,000");
  });
});
