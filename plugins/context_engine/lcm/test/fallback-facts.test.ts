import { describe, expect, it } from "vitest";
import { estimateTextTokens } from "@context-engine/core";
import { deterministicSummary } from "../src/compaction/fallback.js";
import { renderSourceMessages } from "../src/compaction/source-text.js";

const command = "cd /testbed && python -m pytest tests/test_timezone.py -k naive --maxfail=1 -q 2>&1 | tail -n 40";

function agentSource(steps: number): string {
  const messages = [];
  for (let i = 0; i < steps; i++) {
    messages.push({ role: "assistant" as const, content: `THOUGHT: step ${i}, checking the timezone handling once more in the backend module`, tool_calls: [{ id: `c${i}`, type: "function" as const, function: { name: "bash", arguments: JSON.stringify({ command: i === 3 ? command : `grep -n tzname django/db/backends/mod${i}.py` }) } }] });
    messages.push({ role: "tool" as const, tool_call_id: `c${i}`, content: `<returncode>1</returncode>\n${"output line\n".repeat(40)}${i === 5 ? "E   AssertionError: expected 2017-07-06 20:50:00+02:00\n" : ""}` });
  }
  return renderSourceMessages(messages.map((message, seq) => ({ seq, message })));
}

describe("deterministic summary keeps the facts of its sources", () => {
  it("keeps a command line whole and error lines verbatim", () => {
    const source = agentSource(12);
    const out = deterministicSummary(source, estimateTextTokens(source), 512);
    expect(out).toContain(`$ ${command}`);
    expect(out).toContain("! E   AssertionError: expected 2017-07-06 20:50:00+02:00");
    expect(estimateTextTokens(out)).toBeLessThanOrEqual(512);
  });

  it("keeps names, dates and numbers of chat turns, and a summary of summaries keeps the most telling ones", () => {
    const turns = Array.from({ length: 40 }, (_, i) => ({
      role: "user" as const,
      content: i === 7 ? "Melanie: I ran the charity race in Boston on 20 May 2023 and it was so much fun!" : `Caroline: that sounds really nice, I think I will try that too some day ${i}`,
    }));
    const source = renderSourceMessages(turns.map((message, seq) => ({ seq, message })));
    const leaf = deterministicSummary(source, estimateTextTokens(source), 512);
    expect(leaf).toMatch(/#7 Melanie: .*Boston.*2023/);
    const condensed = deterministicSummary(`${leaf}\n\n${leaf}`, 2 * estimateTextTokens(leaf), 512);
    // Half the room per entry: numbers and dates go last.
    expect(condensed).toMatch(/#7 Melanie: .*2023/);
    expect(estimateTextTokens(condensed)).toBeLessThanOrEqual(512);
  });
});

describe("fallback summaries as people read them", () => {
  const source = renderSourceMessages([
    { seq: 0, message: { role: "user" as const, content: "You MUST keep the CRITICAL setting MAX_RETRIES at 3 and read config/app.yaml before the deploy on 2024-05-20." } },
    { seq: 1, message: { role: "assistant" as const, content: "I will keep it at 3 and check the file first." } },
  ]);

  it("keeps the small words when there is room, so a line reads as it was written", () => {
    const withOutput = renderSourceMessages([
      { seq: 0, message: { role: "user" as const, content: "Please book the flight from New York to Seattle on May 20th." } },
      { seq: 1, message: { role: "tool" as const, tool_call_id: "c", content: "Here is the full tool output that goes on and on. ".repeat(30) } },
    ]);
    const text = deterministicSummary(withOutput, estimateTextTokens(withOutput), 400);
    expect(text).toContain("Please book the flight from New York to Seattle on May 20th.");
  });

  it("lists real identifiers, not emphasis words or pieces of timestamps", () => {
    const withTimes = `${source}\n\nat 2026-12-04T15:27:51Z the job MAX_RETRIES HTTP2 ran`;
    const text = deterministicSummary(withTimes, estimateTextTokens(withTimes), 20);
    const ids = /Identifiers seen: (.*)/.exec(text)?.[1] ?? "";
    expect(ids).not.toMatch(/\bMUST\b|\bCRITICAL\b/);
    expect(ids).not.toMatch(/2026-12-(?!04)|27:51/);
  });
});

describe("the model summary's size bound", () => {
  it("is 3x the target, at least MIN_ACCEPT_BOUND at small windows, and always below the source", async () => {
    const { acceptBound, MIN_ACCEPT_BOUND } = await import("../src/compaction/summarizer.js");
    expect(acceptBound(400, 5000)).toBe(1200);
    expect(acceptBound(4, 5000)).toBe(MIN_ACCEPT_BOUND);
    expect(acceptBound(4, 50)).toBe(49);
  });
});
