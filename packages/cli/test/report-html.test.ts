import { defaultTokenCounter, type Message } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { createPalette } from "../src/format/color.js";
import type { ChartData } from "../src/replay/chart-data.js";
import { diffCompaction } from "../src/replay/compaction-detail.js";
import { renderHtmlReport } from "../src/replay/render-html.js";
import { renderReplayTables } from "../src/replay/render-table.js";
import { summaryText, syntheticReport } from "./helpers/synthetic-report.js";

const count = (m: Message) => defaultTokenCounter.countMessage(m);

function chartData(html: string): ChartData[] {
  return [...html.matchAll(/<script type="application\/json" class="chart-data">([\s\S]*?)<\/script>/g)].map((m) => JSON.parse(m[1]!) as ChartData);
}

describe("report rendering", () => {
  it("the terminal table has one row per engine and says the checks passed", () => {
    const text = renderReplayTables(syntheticReport(), createPalette(false));
    expect(text).toMatch(/^compressor\s+30\s/m);
    expect(text).toMatch(/^lcm\s+30\s.*61\/61$/m);
    expect(text).toMatch(/n\/a \(lossy\)/);
    expect(text).toMatch(/every request fit the context length/);
  });

  it("the HTML is one self-contained file: uPlot and the page script inline, nothing fetched", () => {
    const html = renderHtmlReport(syntheticReport());
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|@import/);
    expect(html).toContain("uPlot"); // the library, inlined
    expect(html).toContain("demo &lt;session&gt;");
    // Session text inside the chart JSON can never close the script element.
    for (const json of html.matchAll(/class="chart-data">([\s\S]*?)<\/script>/g)) expect(json[1]).not.toContain("<");
  });

  it("the context chart has one series per engine, a marker per compaction, the context length and the threshold", () => {
    const [context, reuse] = chartData(renderHtmlReport(syntheticReport()));
    expect(context!.kind).toBe("context");
    expect(context!.series.map((s) => s.name)).toEqual(["compressor", "lcm"]);
    expect(context!.x).toHaveLength(30);
    // 30 requests: compressor compacts every 8th (3), lcm every 11th (2).
    expect(context!.markers).toHaveLength(5);
    expect(context!.guides.map((g) => g.label)).toEqual(["context length 2,000", "compressor, lcm threshold 1,500"]);
    expect(reuse!.kind).toBe("prefix-reuse");
    expect(reuse!.series[0]!.values[0]).toBeNull(); // the first request has no predecessor
  });

  it("every compaction marker opens a details block with tokens before/after, the summary and the span replaced", () => {
    const html = renderHtmlReport(syntheticReport());
    const [context] = chartData(html);
    for (const m of context!.markers) expect(html).toContain(`id="${m.target}"`);
    const first = html.slice(html.indexOf(`id="${context!.markers[0]!.target}"`));
    const block = first.slice(0, first.indexOf("</details>"));
    expect(block).toContain("1,800 → 400 tokens");
    expect(block).toContain("[compressor summary 1] the user stepped through the plan &lt;ok&gt; &amp; kept going");
    expect(block).toMatch(/<ol class="replaced">(<li>.*?<\/li>){7}<\/ol>/); // steps 1–7 left; step 8 stays as the tail
    expect(block).toContain("step 1 step 1");
  });

  it("shows the evidence figures when the data has questions", () => {
    const html = renderHtmlReport(syntheticReport());
    const table = html.slice(html.indexOf('<table class="evidence">'), html.indexOf("</table>", html.indexOf('<table class="evidence">')));
    expect(table).toMatch(/data-engine="compressor">.*<td>12<\/td><td>9\/20 .*<td>n\/a \(lossy\)<\/td>/);
    expect(table).toMatch(/data-engine="lcm">.*<td>20\/20 .*<td>12\/12 /);
  });
});

describe("what a compaction did", () => {
  it("diffs the conversation: gone messages are the span replaced, new ones the summary", () => {
    const head: Message = { role: "system", content: "sys" };
    const a: Message = { role: "user", content: "first question" };
    const b: Message = { role: "assistant", content: "first answer", tool_calls: [{ id: "c1", type: "function", function: { name: "grep", arguments: '{"q":"x"}' } }] };
    const tool: Message = { role: "tool", tool_call_id: "c1", content: "hit" };
    const tail: Message = { role: "user", content: "latest" };
    const summary: Message = { role: "user", content: summaryText("x", 1) };
    const d = diffCompaction([head, a, b, tool, tail], [head, summary, tail], count);
    expect(d.replaced.map((m) => [m.index, m.role])).toEqual([
      [1, "user"],
      [2, "assistant"],
      [3, "tool"],
    ]);
    expect(d.replaced[1]!.text).toContain('grep({"q":"x"})');
    expect(d.replacedTokens).toBe(count(a) + count(b) + count(tool));
    expect(d.added.map((m) => m.text)).toEqual([summaryText("x", 1)]);
    expect([d.messagesBefore, d.messagesAfter, d.addedCount, d.replacedCount]).toEqual([5, 3, 1, 3]);
    // Duplicates count one by one: one of two equal messages leaving is one replaced.
    expect(diffCompaction([a, a, tail], [a, tail], count).replacedCount).toBe(1);
  });
});
