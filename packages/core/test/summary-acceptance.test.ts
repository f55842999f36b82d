import { describe, expect, it } from "vitest";
import { LEGACY_SUMMARY_PREFIX, acceptSummary, stripSummaryPrefixes, summaryTextOf } from "../src/index.js";

const source = [
  "[USER]: fix the failing test in src/parser/tokenize.ts, issue #4312",
  "[ASSISTANT]: running npm test -- tokenize",
  "[TOOL RESULT call_1]: FAIL src/parser/tokenize.test.ts > splits_on_commas expected 3 got 2",
  "[ASSISTANT]: the regex in splitTokens drops the last field; patched it, 214 tests pass now.",
].join("\n");
const good = "## Goal\nFix the failing tokenizer test (issue #4312).\n## Progress\n1. Patched splitTokens in src/parser/tokenize.ts; 214 tests pass.";

describe("summary acceptance", () => {
  it("accepts a real summary and normalises objects, lists of parts and fences", () => {
    expect(acceptSummary({ content: good, source, maxTokens: 500 })).toEqual({ ok: true, text: good });
    expect(summaryTextOf({ text: good })).toBe(good);
    expect(summaryTextOf([{ type: "text", text: "## Goal" }, { type: "text", text: "x" }])).toBe("## Goal\nx");
    expect(summaryTextOf("```markdown\n" + good + "\n```")).toBe(good);
    expect(summaryTextOf("<think>hmm</think>\n" + good)).toBe(good);
    expect(acceptSummary({ content: { text: good }, source, maxTokens: 500 }).ok).toBe(true);
  });

  it("strips an existing or legacy prefix, never leaving one doubled", () => {
    const mine = "[MY ENGINE SUMMARY]";
    expect(stripSummaryPrefixes(`${mine}\n${mine}\n${good}`, [mine])).toBe(good);
    expect(stripSummaryPrefixes(`${LEGACY_SUMMARY_PREFIX} ${good}`)).toBe(good);
    const v = acceptSummary({ content: `${LEGACY_SUMMARY_PREFIX}\n${mine} ${good}`, source, maxTokens: 500, prefixes: [mine] });
    expect(v).toEqual({ ok: true, text: good });
  });

  it("rejects truncation, refusals, empties, copies, oversized answers and invented identifiers", () => {
    const verdict = (over: Partial<Parameters<typeof acceptSummary>[0]>) => {
      const v = acceptSummary({ content: good, source, maxTokens: 500, ...over });
      return v.ok ? "ok" : v.reason;
    };
    expect(verdict({ finishReason: "length" })).toBe("truncated");
    expect(verdict({ refusal: "I can't help with that" })).toBe("refusal");
    expect(verdict({ content: "I'm sorry, but I can't help with that." })).toBe("refusal");
    expect(verdict({ content: "I cannot summarize this conversation because it contains private data. " + "x ".repeat(300) })).toBe("refusal");
    expect(verdict({ finishReason: "content_filter" })).toBe("refusal");
    expect(verdict({ content: "   " })).toBe("empty");
    expect(verdict({ content: [{ type: "text", text: "" }] })).toBe("empty");
    const long = source.repeat(4);
    expect(verdict({ content: long, source: long, maxTokens: 100_000 })).toBe("copy");
    expect(verdict({ content: "a".repeat(1_000_000) })).toBe("oversized");
    expect(
      verdict({ content: "## Progress\nEdited lib/http/client.py and server_boot.go; build 99812 green; see fetchRemoteConfig." }),
    ).toBe("invented");
  });

  it("a summary that quotes its source in part is not a copy", () => {
    const long = Array.from({ length: 60 }, (_, i) => `[TOOL RESULT call_${i}]: line ${i} of the log output with some words`).join("\n");
    const summary = "## Progress\n" + long.split("\n").slice(0, 10).join("\n");
    const v = acceptSummary({ content: summary, source: long, maxTokens: 5_000 });
    expect(v.ok).toBe(true);
  });
});
