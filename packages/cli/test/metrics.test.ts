import { defaultTokenCounter, type Message } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { MetricsCollector } from "../src/replay/metrics.js";
import { canonicalMessage, prefixReuse, snapshotRequest } from "../src/replay/prefix.js";
import { computeTotals } from "../src/replay/report.js";

const count = (m: Message) => defaultTokenCounter.countMessage(m);
const sys: Message = { role: "system", content: "You are a careful coding agent. ".repeat(20) };
const u1: Message = { role: "user", content: "Fix the proxy authentication bug in requests/utils.py" };
const a1: Message = { role: "assistant", content: "Looking", tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } }] };
const t1: Message = { role: "tool", tool_call_id: "c1", content: "README.md\nrequests\nsetup.py\n".repeat(10) };

describe("prefix reuse", () => {
  it("ignores cache_control markers and key order", () => {
    const a = { role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }] } as unknown as Message;
    const b = { content: [{ text: "hi", type: "text" }], role: "user" } as unknown as Message;
    expect(canonicalMessage(a)).toBe(canonicalMessage(b));
  });

  it("is the token share of the previous request repeated at the start", () => {
    const prev = snapshotRequest([sys, u1, a1], count);
    const same = prefixReuse(prev, snapshotRequest([sys, u1, a1, t1], count));
    expect(same.messages).toBe(3);
    expect(same.share).toBe(1);
    const changed = prefixReuse(prev, snapshotRequest([sys, { role: "user", content: "summary" }, a1], count));
    expect(changed.messages).toBe(1);
    expect(changed.tokens).toBe(count(sys));
    expect(changed.share).toBeCloseTo(count(sys) / prev.total, 10);
    // A later difference does not count earlier messages twice; a reordering breaks the prefix.
    expect(prefixReuse(prev, snapshotRequest([u1, sys, a1], count)).share).toBe(0);
  });
});

describe("MetricsCollector", () => {
  it("computes peak, mean, over budget, compactions and steady reuse from observations", () => {
    const c = new MetricsCollector({ contextLength: 400, countMessage: count });
    c.observe({ type: "request", turn: 0, messages: [sys, u1], tokens: 200 });
    c.observe({ type: "request", turn: 0, messages: [sys, u1, a1, t1], tokens: 380 });
    c.observe({ type: "compaction", turn: 0, outcome: "committed", durationMs: 12, beforeTokens: 380, afterTokens: 150, trigger: "post_tool" });
    c.observe({ type: "compaction", turn: 0, outcome: "failed", durationMs: 3, reason: "boom" });
    c.observe({ type: "request", turn: 0, messages: [sys, { role: "user", content: "[summary]" }], tokens: 150 });
    c.observe({ type: "request", turn: 1, messages: [sys, { role: "user", content: "[summary]" }, u1], tokens: 450 });
    c.observe({ type: "engine_tool", turn: 1, name: "lcm_grep", ok: true });
    c.observe({ type: "turn_completed", turn: 1 });
    const m = c.finish({ engine: "x", sessionId: "s", thresholdTokens: 300, lossless: false, recoverability: null, wallMs: 5 });
    expect(m.summary.requests).toBe(4);
    expect(m.summary.turns).toBe(2);
    expect(m.summary.peakContext).toBe(450);
    expect(m.summary.meanContext).toBe((200 + 380 + 150 + 450) / 4);
    expect(m.summary.compactions).toBe(1);
    expect(m.summary.compactionFailures).toBe(1);
    expect(m.summary.compactionTimeMs).toBe(15);
    expect(m.summary.overBudget).toBe(1);
    expect(m.errors.join()).toMatch(/1 request\(s\) exceeded the 400-token context length/);
    expect(m.compactions[0]!.beforeRequest).toBe(3);
    expect(m.requests[2]!.afterCompaction).toBe(true);
    expect(m.requests[1]!.prefixReuse).toBe(1);
    expect(m.requests[3]!.prefixReuse).toBe(1);
    // Steady reuse excludes request 3 (right after the compaction), whose prefix broke.
    expect(m.summary.prefixReuseSteady).toBe(1);
    expect(m.summary.prefixReuse).toBeLessThan(1);
    expect(m.summary.engineToolCalls).toBe(1);
  });

  it("notes prefix breaks that no compaction explains, and whether selectContext caused them", () => {
    const c = new MetricsCollector({ contextLength: 0, countMessage: count });
    c.observe({ type: "request", turn: 0, messages: [sys, u1, a1, t1], selection: "applied" });
    c.observe({ type: "request", turn: 0, messages: [{ role: "system", content: "other" }, u1, a1, t1], selection: "applied" });
    const m = c.finish({ engine: "x", sessionId: "s", thresholdTokens: null, lossless: false, recoverability: null, wallMs: 1 });
    expect(m.requests[1]!.selection).toBe("applied");
    expect(m.notes).toEqual(["1 request(s) kept less than half of the previous request's prefix without a compaction (1 with the engine's selectContext applied)"]);
    expect(m.errors).toEqual([]);
  });

  it("flags lost messages of a lossless engine as an error", () => {
    const c = new MetricsCollector({ contextLength: 0, countMessage: count });
    c.observe({ type: "request", turn: 0, messages: [sys, u1] });
    const m = c.finish({
      engine: "lcm",
      sessionId: "s",
      thresholdTokens: null,
      lossless: true,
      recoverability: { method: "test", checked: 4, recovered: 3, missing: [{ index: 2, role: "tool", preview: "x" }] },
      wallMs: 1,
    });
    expect(m.summary.overBudget).toBe(0);
    expect(m.summary.tokensSent).toBe(count(sys) + count(u1));
    expect(m.errors).toEqual(["1 of 4 message(s) are no longer recoverable: message #2"]);
  });

  it("totals weigh prefix reuse by tokens across sessions", () => {
    const run = (tokens: number[], reuseSame: boolean, id: string) => {
      const c = new MetricsCollector({ contextLength: 10_000, countMessage: count });
      let msgs: Message[] = [sys];
      for (const t of tokens) {
        msgs = reuseSame ? [...msgs, u1] : [{ role: "system", content: `v${t}` }, u1];
        c.observe({ type: "request", turn: 0, messages: msgs, tokens: t });
      }
      return c.finish({ engine: "e", sessionId: id, thresholdTokens: null, lossless: false, recoverability: null, wallMs: 1 });
    };
    const a = run([10, 20, 30], true, "a");
    const b = run([10, 20], false, "b");
    const totals = computeTotals(["e"], [
      { id: "a", format: "openai-jsonl", source: { path: "a" }, messages: 3, turns: 1, runs: [a] },
      { id: "b", format: "openai-jsonl", source: { path: "b" }, messages: 2, turns: 1, runs: [b] },
    ]);
    const reused = [...a.requests, ...b.requests].reduce((s, r) => s + r.prefixReusedTokens, 0);
    const base = [...a.requests, ...b.requests].reduce((s, r) => s + r.prefixBaseTokens, 0);
    expect(totals[0]!.prefixReuse).toBeCloseTo(reused / base, 10);
    expect(totals[0]!.requests).toBe(5);
    expect(totals[0]!.peakContext).toBe(30);
  });
});
