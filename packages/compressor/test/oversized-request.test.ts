import type { Logger, Message } from "@context-engine/core";
import { checkCompressResult, contentText, createEstimator, toolCallsOf } from "@context-engine/core";
import { createFakeChatModel } from "@context-engine/contract-tests/fixtures";
import { describe, expect, it } from "vitest";
import { ContextCompressor, RESTATED_REQUEST_HEADER, SUMMARY_END_MARKER, SUMMARY_PREFIX, isSummaryMessage } from "../src/index.js";
import { agentConversation, expectValid } from "./helpers.js";

/**
 * The latest user request is kept verbatim while the list can fit the
 * window; only a request the window cannot hold is shortened (start and end
 * kept). These tests pin down what happens when it is larger than the tail
 * budget, and when it is larger than the window itself.
 */
const counter = createEstimator();

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug() {}, info() {}, warn: (m: string) => void warnings.push(m), error() {} };
}

const textOf = (messages: readonly Message[]) => messages.map((m) => contentText(m.content)).join("\n");

describe("an oversized latest request", () => {
  it("larger than the tail budget but under the threshold: kept verbatim, the result fits", async () => {
    const engine = new ContextCompressor({ contextLength: 16_000, chatModel: createFakeChatModel() });
    const request = `Review this design doc: ${"the service shall retry idempotent calls. ".repeat(550)}`;
    expect(counter.countText(request)).toBeGreaterThan(3_200); // the derived tail budget for a 16k window
    // An opening turn that is protected until the first compaction, then the big request and agent work.
    const messages = [...agentConversation({ turns: 10 }), { role: "user", content: request } as Message];
    for (let i = 0; i < 4; i++) {
      messages.push({ role: "assistant", content: null, tool_calls: [{ id: `r${i}`, type: "function", function: { name: "read", arguments: `{"section":${i}}` } }] });
      messages.push({ role: "tool", tool_call_id: `r${i}`, content: `section ${i} ${"text ".repeat(300)}` });
    }
    const out = await engine.compress(messages);
    expectValid(out);
    expect(counter.countMessages(out)).toBeLessThan(engine.thresholdTokens);
    expect(textOf(out)).toContain(request);
  });

  it("larger than the window: everything else reduced to a summary, the request shortened to fit (start and end kept), and no futile retries", async () => {
    const model = createFakeChatModel();
    const logger = recordingLogger();
    const engine = new ContextCompressor({ contextLength: 8_000, chatModel: model, logger });
    const request = `HUGE ${"z ".repeat(40_000)}`;
    const messages = [...agentConversation({ turns: 8 }), { role: "user", content: request } as Message];
    expect(counter.countText(request)).toBeGreaterThan(engine.contextLength);

    const out = await engine.compress(messages);
    expectValid(out);
    expect(engine.compressionCount).toBe(1);
    // System prompt + summary + the request: the protected opening turn
    // shrinks away too, since nothing else can make room.
    expect(out[0]).toBe(messages[0]);
    expect(out.slice(1).every((m) => m.role === "user" || isSummaryMessage(m))).toBe(true);
    expect(out.length).toBeLessThanOrEqual(3);
    expect(out.some(isSummaryMessage)).toBe(true);
    // The conversation could not be sent whole: the request keeps its start and end, and the list fits the window.
    expect(textOf(out)).not.toContain(request);
    expect(textOf(out)).toMatch(/HUGE z z[\s\S]*chars removed by the context compressor[\s\S]*z z $/);
    expect(counter.countMessages(out)).toBeLessThanOrEqual(engine.contextLength);
    expect(checkCompressResult(out, { requiredUser: messages.at(-1)! }).ok).toBe(true);
    expect(logger.warnings.some((w) => w.includes("did not fit the context window"))).toBe(true);

    // Nothing is left to summarise: the next call returns the same list and asks no model.
    const calls = model.calls.length;
    expect(await engine.compress(out)).toBe(out);
    expect(model.calls.length).toBe(calls);
    expect(engine.compressionCount).toBe(1);
  });

  it("larger than the window with agent work after it: restated, shortened to fit, before that work", async () => {
    for (const chatModel of [undefined, createFakeChatModel()]) {
      const engine = new ContextCompressor({ contextLength: 8_000, ...(chatModel ? { chatModel } : {}) });
      const request = `HUGE ${"z ".repeat(40_000)}`;
      const messages = [...agentConversation({ turns: 8 }), { role: "user", content: request } as Message];
      for (let i = 0; i < 3; i++) {
        messages.push({ role: "assistant", content: null, tool_calls: [{ id: `q${i}`, type: "function", function: { name: "bash", arguments: "{}" } }] });
        messages.push({ role: "tool", tool_call_id: `q${i}`, content: "r".repeat(2_000) });
      }
      const out = await engine.compress(messages);
      expectValid(out);
      const restated = out.find((m) => m.role === "user" && contentText(m.content).includes(RESTATED_REQUEST_HEADER))!;
      expect(contentText(restated.content)).toMatch(/HUGE z z[\s\S]*chars removed by the context compressor/);
      expect(counter.countMessages(out)).toBeLessThanOrEqual(engine.contextLength);
      expect(checkCompressResult(out, { requiredUser: messages.find((m) => contentText(m.content) === request)! }).ok).toBe(true);
      // The newest tool round follows it, intact as a pair.
      expect(toolCallsOf(out.at(-2)!)[0]?.id).toBe("q2");
      expect(out.at(-1)).toMatchObject({ role: "tool", tool_call_id: "q2" });
      expect(out.indexOf(restated)).toBeLessThan(out.length - 2);
      // Again: only the summary and the restated request are left to compact, so nothing happens.
      const calls = chatModel?.calls.length ?? 0;
      expect(await engine.compress(out)).toBe(out);
      expect(chatModel?.calls.length ?? 0).toBe(calls);
    }
  });

  it("a middle holding only the previous summary is not summarised again", async () => {
    const model = createFakeChatModel();
    const engine = new ContextCompressor({ contextLength: 8_000, chatModel: model });
    // The usual layout after a compaction (a standalone summary as the first
    // user turn), then an answer far too big to keep beside anything.
    const body = "## Latest Request\n> Write the report on build 42.\n\n## Goal\nShip the report.";
    const transcript: Message[] = [
      { role: "system", content: "sys" },
      { role: "user", content: `${SUMMARY_PREFIX}\n\n${body}\n\n${SUMMARY_END_MARKER}` },
      { role: "assistant", content: `BEGIN ${"y ".repeat(30_000)} END` },
    ];
    const calls = model.calls.length;
    const out = await engine.compress(transcript, { force: true });
    // Nothing new to summarise: no model call; only the oversized answer is shortened.
    expect(model.calls.length).toBe(calls);
    expectValid(out);
    expect(out[1]).toBe(transcript[1]);
    expect(contentText(out[2]!.content)).toMatch(/^BEGIN[\s\S]*chars removed by the context compressor[\s\S]*END$/);
    expect(counter.countMessages(out)).toBeLessThan(engine.thresholdTokens);
  });
});
