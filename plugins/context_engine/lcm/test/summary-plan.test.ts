import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { frontierSwap, summaryId, summaryRecord, summarySources, validateSummary, type SourceMessage, type SummarySources } from "../src/store/summary-plan.js";
import type { FrontierItem, NewSummary, SummaryRecord } from "../src/store/types.js";

const leafOf = (ids: number[], content = "summary"): NewSummary => ({ conversationId: 1, kind: "leaf", depth: 0, content, tokens: 5, sourceMessageIds: ids });
const msgRow = (id: number, seq: number): SourceMessage => ({ id, seq, tokens: seq + 1, createdAt: 1000 + seq * 10 });
const child = (id: string, over: Partial<SummaryRecord> = {}): SummaryRecord => ({
  id, conversationId: 1, kind: "leaf", depth: 0, content: id, tokens: 3, level: "normal", model: null,
  earliestAt: 100, latestAt: 200, firstSeq: 0, lastSeq: 3, descendantMessages: 4, sourceTokens: 40, meta: null, createdAt: 1, ...over,
});
const m = (messageId: number, ordinal: number, tokens = 2): FrontierItem => ({ kind: "message", messageId, ordinal, tokens });

describe("summary plan", () => {
  it("refuses malformed summaries", () => {
    expect(() => validateSummary({ ...leafOf([1]), content: "" })).toThrow(/content/);
    expect(() => validateSummary({ ...leafOf([]) })).toThrow(/leaf/);
    expect(() => validateSummary({ ...leafOf([1]), childSummaryIds: ["sum_x"] })).toThrow(/leaf/);
    expect(() => validateSummary({ conversationId: 1, kind: "condensed", depth: 1, content: "c", tokens: 1, childSummaryIds: [] })).toThrow(/condensed/);
    expect(() => validateSummary({ ...leafOf([1]), kind: "other" as "leaf" })).toThrow(/kind/);
  });

  it("computes a leaf's span from its sources in seq order, whatever order they are named in (property)", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.nat(500), { minLength: 1, maxLength: 20 }), fc.boolean(), (seqs, twice) => {
        const rows = seqs.map((s) => msgRow(10_000 + s, s));
        const named = rows.map((r) => r.id);
        const s = summarySources(leafOf(twice ? [...named, ...named] : named), { messages: rows }) as SummarySources;
        const sorted = [...seqs].sort((a, b) => a - b);
        expect(s.messageIds).toEqual(sorted.map((q) => 10_000 + q));
        expect(s.span).toEqual({
          earliestAt: 1000 + sorted[0]! * 10,
          latestAt: 1000 + sorted.at(-1)! * 10,
          firstSeq: sorted[0],
          lastSeq: sorted.at(-1),
          descendantMessages: seqs.length,
          sourceTokens: seqs.reduce((a, q) => a + q + 1, 0),
        });
        // One id formula: the same sources in any order give the same id.
        expect(s.id).toBe(summaryId(1, "leaf", 0, s.messageIds.map((id) => `m${id}`), "summary"));
      }),
    );
  });

  it("derives ids from conversation, kind, depth, sources and content, and nothing else", () => {
    const base = summaryId(1, "leaf", 0, ["m1", "m2"], "text");
    expect(base).toMatch(/^sum_[0-9a-f]{16}$/);
    expect(summaryId(1, "leaf", 0, ["m1", "m2"], "text")).toBe(base);
    for (const other of [summaryId(2, "leaf", 0, ["m1", "m2"], "text"), summaryId(1, "condensed", 0, ["m1", "m2"], "text"), summaryId(1, "leaf", 1, ["m1", "m2"], "text"), summaryId(1, "leaf", 0, ["m1"], "text"), summaryId(1, "leaf", 0, ["m1", "m2"], "text!")]) {
      expect(other).not.toBe(base);
    }
  });

  it("refuses sources that are not in the conversation", () => {
    expect(summarySources(leafOf([1, 2]), { messages: [msgRow(1, 0)] })).toEqual({ ok: false, reason: "unknown_source", detail: "message 2 is not in conversation 1" });
    const condensed: NewSummary = { conversationId: 1, kind: "condensed", depth: 1, content: "c", tokens: 1, childSummaryIds: ["sum_a", "sum_b"] };
    const children = new Map([["sum_a", child("sum_a")], ["sum_b", child("sum_b", { conversationId: 2 })]]);
    expect(summarySources(condensed, { children })).toMatchObject({ ok: false, reason: "unknown_source" });
  });

  it("spans a condensed summary over its children and requires it to be deeper", () => {
    const children = new Map([
      ["sum_a", child("sum_a")],
      ["sum_b", child("sum_b", { earliestAt: 300, latestAt: 400, firstSeq: 4, lastSeq: 9, descendantMessages: 6, sourceTokens: 60 })],
    ]);
    const input: NewSummary = { conversationId: 1, kind: "condensed", depth: 1, content: "c", tokens: 1, childSummaryIds: ["sum_a", "sum_b"] };
    const s = summarySources(input, { children }) as SummarySources;
    expect(s).toMatchObject({ childIds: ["sum_a", "sum_b"], span: { earliestAt: 100, latestAt: 400, firstSeq: 0, lastSeq: 9, descendantMessages: 10, sourceTokens: 100 } });
    expect(summaryRecord(input, s, 77)).toMatchObject({ id: s.id, createdAt: 77, level: "normal", model: null, meta: null, tokens: 1 });
    expect(() => summarySources({ ...input, depth: 0 }, { children })).toThrow(/depth/);
  });

  it("swaps the run only when it holds exactly what was expected, and only covered items", () => {
    const sources = summarySources(leafOf([1, 2]), { messages: [msgRow(1, 0), msgRow(2, 1)] }) as SummarySources;
    const run = [m(1, 4, 3), m(2, 5, 4)];
    const replace = { fromOrdinal: 4, toOrdinal: 5, expect: [m(1, 4), m(2, 5)] };
    expect(frontierSwap(replace, sources, run, false)).toEqual({ kind: "replace", fromOrdinal: 4, toOrdinal: 5, removedItems: 2, removedTokens: 7 });
    expect(frontierSwap(replace, sources, run, true)).toEqual({ kind: "already" });
    expect(frontierSwap(replace, sources, [m(1, 4)], false)).toMatchObject({ ok: false, reason: "frontier_changed" });
    expect(frontierSwap(replace, sources, [], false)).toMatchObject({ ok: false, reason: "frontier_changed" });
    expect(frontierSwap({ ...replace, expect: [m(2, 4), m(1, 5)] }, sources, run, false)).toMatchObject({ ok: false, reason: "frontier_changed" });
    const wide = { fromOrdinal: 4, toOrdinal: 6, expect: [m(1, 4), m(2, 5), m(3, 6)] };
    expect(frontierSwap(wide, sources, [...run, m(3, 6)], false)).toEqual({ ok: false, reason: "not_covered", detail: "frontier ordinal 6 (message 3) is not covered by the summary" });
  });
});
