// Hermes Agent's tests/agent/test_context_compressor.py, translated to our API (behaviour, not code).
// Differences by design, each asserted here as our documented behaviour:
// - compress on a list under the threshold is a no-op unless forced (Hermes compresses whatever it is
//   given); the translated compaction tests pass `force: true`, as a manual /compress does.
// - status keys are camelCase and there is no summarization_count / estimated_tokens_saved /
//   context_source: the mode of the last compaction (`lastCompaction.mode`, "model" or "extractive")
//   and its before/after figures say the same.
// - a pass that would not make the list smaller is refused and leaves it unchanged (Hermes compacts
//   a handful of 6-character messages); the translated lists carry some text for that reason.
// - with no summary model the fallback is a deterministic extractive summary, not a truncation.
import type { Message } from "@context-engine/core";
import { contentText, toolCallsOf } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { ContextCompressor, isSummaryMessage } from "../src/index.js";
import { expectValid, fakeSummariser } from "./helpers.js";

const fixture = () => new ContextCompressor({ contextLength: 100_000, model: "test/model", config: { threshold: 0.85, protect_first_n: 2, protect_last_n: 2 } });
// Hermes's messages are a few characters; ours carry some text, because a compaction that would not
// shrink the list (a summary larger than what it replaces) is refused (documented; counted as a strike).
const alternating = (n: number, filler = 400): Message[] =>
  Array.from({ length: n }, (_, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: `msg ${i}: ${"detail ".repeat(filler)}` }) as Message);

describe("ContextCompressor (Hermes test_context_compressor.py)", () => {
  describe("shouldCompress", () => {
    it("below the threshold: no", () => {
      const c = fixture();
      c.lastPromptTokens = 50_000;
      expect(c.shouldCompress()).toBe(false);
    });
    it("above it: yes", () => {
      const c = fixture();
      c.lastPromptTokens = 90_000;
      expect(c.shouldCompress()).toBe(true);
    });
    it("exactly at it: yes", () => {
      const c = fixture();
      c.lastPromptTokens = c.thresholdTokens;
      expect(c.thresholdTokens).toBe(85_000);
      expect(c.shouldCompress()).toBe(true);
    });
    it("an explicit figure wins over the last usage", () => {
      const c = fixture();
      expect(c.shouldCompress(90_000)).toBe(true);
      expect(c.shouldCompress(50_000)).toBe(false);
    });
  });

  describe("shouldCompressPreflight", () => {
    it("a short list: no", () => {
      expect(fixture().shouldCompressPreflight([{ role: "user", content: "short" }])).toBe(false);
    });
    it("a list over the threshold on the estimate: yes", () => {
      expect(fixture().shouldCompressPreflight([{ role: "user", content: "x ".repeat(200_000) }])).toBe(true);
    });
  });

  describe("updateFromResponse", () => {
    it("records the three counts", () => {
      const c = fixture();
      c.updateFromResponse({ prompt_tokens: 5_000, completion_tokens: 1_000, total_tokens: 6_000 });
      expect([c.lastPromptTokens, c.lastCompletionTokens, c.lastTotalTokens]).toEqual([5_000, 1_000, 6_000]);
    });
    it("missing fields read as 0", () => {
      const c = fixture();
      c.updateFromResponse({} as never);
      expect(c.lastPromptTokens).toBe(0);
    });
  });

  describe("getStatus", () => {
    it("has the standard figures", () => {
      const status = fixture().getStatus();
      for (const key of ["lastPromptTokens", "thresholdTokens", "contextLength", "usagePercent", "compressionCount", "lastCompaction", "summaryMode"]) {
        expect(status).toHaveProperty(key);
      }
    });
    it("usage percent of the window", () => {
      const c = fixture();
      c.lastPromptTokens = 50_000;
      expect(c.getStatus().usagePercent).toBe(50);
    });
  });

  describe("compress", () => {
    it("too few messages to split: unchanged", async () => {
      const msgs = alternating(4, 0);
      expect(await fixture().compress(msgs, { force: true })).toEqual(msgs);
    });

    it("without a summary model: a deterministic summary, the system prompt first, counted", async () => {
      const c = fixture();
      const msgs: Message[] = [{ role: "system", content: "System prompt" }, ...alternating(10)];
      const out = await c.compress(msgs, { force: true });
      expect(out.length).toBeLessThan(msgs.length);
      expect(out[0]!.role).toBe("system");
      expect(c.compressionCount).toBe(1);
      expect(c.getStatus().lastCompaction?.mode).toBe("extractive");
    });

    it("each compaction is counted", async () => {
      const c = fixture();
      const msgs = alternating(10);
      await c.compress(msgs, { force: true });
      expect(c.compressionCount).toBe(1);
      const before = c.getStatus().lastCompaction!;
      expect(before.beforeTokens - before.afterTokens).toBeGreaterThanOrEqual(0);
      await c.compress(msgs, { force: true });
      expect(c.compressionCount).toBe(2);
    });

    it("with a summary model: the model's summary is used and the pass is a model one", async () => {
      const c = new ContextCompressor({ contextLength: 100_000, model: "test", chatModel: fakeSummariser({ reply: () => "## Goal\nCONTEXT SUMMARY: summarized" }) });
      const out = await c.compress(alternating(10), { force: true });
      expect(c.compressionCount).toBe(1);
      expect(c.getStatus().lastCompaction?.mode).toBe("model");
      expect(out.some((m) => isSummaryMessage(m) && contentText(m.content).includes("CONTEXT SUMMARY"))).toBe(true);
      expect(out.length).toBeLessThan(10);
    });

    it("keeps the last messages verbatim", async () => {
      const msgs = alternating(10);
      const out = await fixture().compress(msgs, { force: true });
      expect(contentText(out.at(-1)!.content)).toContain(contentText(msgs.at(-1)!.content));
    });
  });

  describe("content that is null (tool-call-only assistants, an empty system prompt)", () => {
    it("does not break a summarising pass", async () => {
      const c = new ContextCompressor({ contextLength: 100_000, chatModel: fakeSummariser({ reply: () => "## Goal\nCONTEXT SUMMARY: tool calls happened" }) });
      const msgs: Message[] = [
        { role: "user", content: "do something" },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "search", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "c1", content: "result" },
        { role: "assistant", content: null },
        ...alternating(8),
        { role: "user", content: "thanks" },
      ];
      const out = await c.compress(msgs, { force: true });
      expectValid(out);
      expect(out.length).toBeLessThan(msgs.length);
    });

    it("an empty system prompt does not break compress", async () => {
      const c = new ContextCompressor({ contextLength: 100_000, config: { protect_first_n: 2, protect_last_n: 2 } });
      const msgs: Message[] = [{ role: "system", content: "" }, ...alternating(10)];
      const out = await c.compress(msgs, { force: true });
      expect(out.length).toBeLessThan(msgs.length);
    });
  });

  describe("tool pairs", () => {
    const model = () => fakeSummariser({ reply: () => "## Goal\nCONTEXT SUMMARY: compressed middle" });

    it("never splits a call from its results", async () => {
      const c = new ContextCompressor({ contextLength: 100_000, chatModel: model(), config: { protect_first_n: 3, protect_last_n: 4 } });
      const msgs: Message[] = [
        { role: "user", content: "Could you address the reviewer comments in PR#71" },
        {
          role: "assistant",
          content: "",
          tool_calls: [
            { id: "call_a", type: "function", function: { name: "skill_view", arguments: "{}" } },
            { id: "call_b", type: "function", function: { name: "skill_view", arguments: "{}" } },
          ],
        },
        { role: "tool", tool_call_id: "call_a", content: "output a" },
        { role: "tool", tool_call_id: "call_b", content: "output b" },
        { role: "user", content: "later 1" },
        { role: "assistant", content: "later 2" },
        { role: "user", content: "later 3" },
        { role: "assistant", content: "later 4" },
        { role: "user", content: "later 5" },
      ];
      const out = await c.compress(msgs, { force: true });
      const answered = new Set(out.flatMap((m) => (m.role === "tool" ? [m.tool_call_id] : [])));
      for (const m of out) for (const call of toolCallsOf(m)) expect(answered.has(call.id)).toBe(true);
      expectValid(out);
    });

    it("never starts the kept tail with a tool result", async () => {
      const c = new ContextCompressor({ contextLength: 100_000, chatModel: model(), config: { protect_first_n: 2, protect_last_n: 3 } });
      const msgs: Message[] = [
        { role: "user", content: "earlier 1" },
        { role: "assistant", content: "earlier 2" },
        { role: "user", content: "earlier 3" },
        { role: "assistant", content: "", tool_calls: [{ id: "call_c", type: "function", function: { name: "search_files", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "call_c", content: "output c" },
        { role: "user", content: "latest user" },
      ];
      const out = await c.compress(msgs, { force: true });
      const called = new Set(out.flatMap((m) => toolCallsOf(m).map((call) => call.id)));
      for (const m of out) if (m.role === "tool") expect(called.has(m.tool_call_id)).toBe(true);
    });
  });

  // From test_context_engine.py (TestCompressorSessionReset): the compressor's own reset.
  describe("onSessionReset", () => {
    it("zeroes the figures and forgets the session's previous summary", async () => {
      const c = fixture();
      c.onSessionStart("s1");
      await c.compress(alternating(10), { force: true, sessionId: "s1" });
      c.updateFromResponse({ prompt_tokens: 900, completion_tokens: 10, total_tokens: 910 });
      expect(c.getStatus().hasPreviousSummary).toBe(true);
      c.onSessionReset();
      expect([c.lastPromptTokens, c.lastCompletionTokens, c.lastTotalTokens, c.compressionCount]).toEqual([0, 0, 0, 0]);
      expect(c.getStatus().hasPreviousSummary).toBe(false);
    });
  });
});
