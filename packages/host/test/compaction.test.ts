import type { CompressOptions, Message } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { ContextBudgetExceededError } from "../src/index.js";
import { RecordingEngine } from "./support/engines.js";
import { makeHost, useFakeServer } from "./support/setup.js";

const server = useFakeServer();

/** A conversation of `pairs` user/assistant exchanges with some bulk. */
function conversation(pairs: number, tag = "x"): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < pairs; i++) {
    out.push({ role: "user", content: `${tag} question ${i}: ${"lorem ipsum ".repeat(20)}` });
    out.push({ role: "assistant", content: `${tag} answer ${i}: ${"dolor sit amet ".repeat(20)}` });
  }
  return out;
}

const compressOptions = (engine: RecordingEngine) =>
  engine.calls.filter((c) => c.hook === "compress").map((c) => c.args[1] as CompressOptions);

describe("automatic compaction", () => {
  it("compacts at turn start when over threshold, then marks -1 until real usage arrives", async () => {
    server.script([{ content: "fresh answer", usage: { prompt_tokens: 120, completion_tokens: 3, total_tokens: 123 } }]);
    const engine = new RecordingEngine();
    engine.thresholdPercent = 0.05; // 400 tokens of an 8000 window
    const { host, ofType } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 8000, systemPrompt: "sys", history: conversation(10) });
    const atCommit: Array<{ engine: number; session: number; awaiting: boolean; status: number }> = [];
    host.on("compaction.committed", () =>
      atCommit.push({
        engine: engine.lastPromptTokens,
        session: session.status().lastPromptTokens,
        awaiting: engine.awaitingRealUsageAfterCompression,
        status: engine.getStatus().lastPromptTokens,
      }),
    );
    const result = await session.send("continue");

    expect(result.status).toBe("completed");
    const committed = ofType("compaction.committed");
    expect(committed.length).toBeGreaterThanOrEqual(1);
    expect(committed[0]).toMatchObject({ trigger: "preflight", messagesBefore: 22 });
    expect(committed[0]!.tokensAfter).toBeLessThan(committed[0]!.tokensBefore);
    expect(ofType("compaction.started")[0]).toMatchObject({ trigger: "preflight", force: false, focusTopic: null });
    expect(atCommit[0]).toEqual({ engine: -1, session: -1, awaiting: true, status: 0 });
    // The request that went out is the compacted one.
    const sent = server.requests[0]!.body.messages;
    expect(sent.length).toBeLessThan(22);
    expect(JSON.stringify(sent)).toContain("[summary of");
    expect(sent.at(-1)).toEqual({ role: "user", content: "continue" });
    // Real usage replaced the sentinel.
    expect(engine.lastPromptTokens).toBe(120);
    expect(engine.awaitingRealUsageAfterCompression).toBe(false);
    expect(session.status().lastPromptTokens).toBe(120);
    // Compaction boundary notification (in place: same id).
    const boundary = engine.calls.filter((c) => c.hook === "onSessionStart").slice(1)[0]!;
    expect(boundary.args[0]).toBe(session.id);
    expect(boundary.args[1]).toMatchObject({ boundaryReason: "compression", oldSessionId: session.id });
    expect(engine.hooks()).not.toContain("onSessionEnd");
    const opts = compressOptions(engine)[0]!;
    expect(opts.sessionId).toBe(session.id);
    expect(opts.force).toBe(false);
    expect(opts.signal).toBeInstanceOf(AbortSignal);
    expect(opts.currentTokens).toBeGreaterThan(400);
  });

  it("compresses on a deep snapshot: in-place edits by a failing engine never reach the conversation", async () => {
    server.script([{ content: "ok" }]);
    const engine = new RecordingEngine();
    engine.forceShouldCompress = true;
    engine.compress = async (messages: Message[]) => {
      (messages[0] as { content: string }).content = "CORRUPTED";
      messages.splice(1, 5);
      throw new Error("summariser crashed");
    };
    const { host, ofType } = makeHost(server, { engine, config: { maxCompressionAttempts: 1 } });
    const history = conversation(4);
    const session = await host.openSession({ model: "test-model", contextLength: 8000, history });
    const result = await session.send("next");
    expect(result.status).toBe("completed");
    expect(session.messages.slice(0, 8)).toEqual(history);
    expect(ofType("compaction.failed")[0]!.error).toMatch(/summariser crashed/);
    expect(server.requests[0]!.body.messages).toHaveLength(9);
  });

  const badResults: Array<[string, unknown, RegExp]> = [
    ["an empty list", [], /empty/],
    ["null", null, /got null/],
    ["a list with a string", ["x"], /message 0: expected an object/],
    ["a message with an unknown role", [{ role: "wizard", content: "x" }], /unknown role/],
    ["a message with numeric content", [{ role: "user", content: 5 }], /content must be/],
    ["a list without the latest user message", [{ role: "assistant", content: "summary only" }], /latest user message is missing/],
    ["a tool message without tool_call_id", [{ role: "user", content: "x" }, { role: "tool", content: "r" }], /no tool_call_id/],
  ];
  for (const [label, value, reason] of badResults) {
    it(`rejects ${label} from compress and keeps every message`, async () => {
      server.script([{ content: "ok" }]);
      const engine = new RecordingEngine();
      engine.forceShouldCompress = true;
      engine.compress = async () => value as Message[];
      const { host, ofType } = makeHost(server, { engine, config: { maxCompressionAttempts: 1 } });
      const session = await host.openSession({ model: "test-model", contextLength: 8000, history: conversation(2) });
      const result = await session.send("next");
      expect(result.status).toBe("completed");
      expect(session.messages).toHaveLength(6);
      expect(ofType("compaction.failed")[0]!.error).toMatch(reason);
    });
  }

  it("reports a no-op pass as unchanged and stops retrying it", async () => {
    server.script([{ content: "ok" }]);
    const engine = new RecordingEngine();
    engine.forceShouldCompress = true;
    engine.compress = async (messages) => messages;
    const { host, ofType } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 8000, history: conversation(2) });
    await session.send("next");
    expect(ofType("compaction.unchanged")).toHaveLength(1);
    expect(ofType("compaction.committed")).toHaveLength(0);
    // Not retried by the pre-API gate in the same turn.
    expect(ofType("compaction.started")).toHaveLength(1);
  });

  it("uses the post-tool gate on real usage, and -1 counts as no pressure", async () => {
    server.script([
      { toolCalls: [{ name: "read_file", arguments: {} }], usage: { prompt_tokens: 7000, completion_tokens: 10, total_tokens: 7010 } },
      { content: "done", usage: { prompt_tokens: 300, completion_tokens: 3, total_tokens: 303 } },
    ]);
    const engine = new RecordingEngine();
    const { host, ofType } = makeHost(server, {
      engine,
      tools: [{ name: "read_file", parameters: { type: "object" } }],
      executeTool: () => "file body",
    });
    const session = await host.openSession({ model: "test-model", contextLength: 8000, history: conversation(3) });
    await session.send("read it");
    // 7000 ≥ 6000 (75% of 8000) after the tool ran.
    expect(ofType("compaction.committed").map((e) => e.trigger)).toEqual(["post_tool"]);
    const postToolCall = engine.calls.filter((c) => c.hook === "shouldCompress").map((c) => c.args[0]);
    expect(postToolCall).toContain(7000);
    expect(session.messages.at(-1)).toMatchObject({ role: "assistant", content: "done" });
  });

  it("commits pruneToolResultsOnly only when it returns a new list and a count", async () => {
    server.script([{ toolCalls: [{ name: "read_file", arguments: {} }] }, { content: "done" }]);
    const engine = new RecordingEngine();
    engine.pruneToolResultsOnly = (messages) => ({
      messages: messages.map((m) => (m.role === "tool" ? { ...m, content: "[trimmed]" } : m)),
      pruned: 1,
    });
    const { host, ofType } = makeHost(server, { engine, tools: [{ name: "read_file", parameters: { type: "object" } }], executeTool: () => "x".repeat(5000) });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    await session.send("read");
    expect(session.messages.find((m) => m.role === "tool")!.content).toBe("[trimmed]");
    expect(ofType("tool_results.pruned")[0]!.pruned).toBe(1);
    expect(server.requests[1]!.body.messages.find((m) => m.role === "tool")!.content).toBe("[trimmed]");
  });

  it("reports a blocked compaction reason once", async () => {
    server.script([{ content: "ok" }]);
    const engine = new RecordingEngine();
    engine.forceShouldCompress = false;
    engine.shouldCompressInfo = () => ({ compress: false, reason: "cooldown:120" });
    const { host, ofType } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    await session.send("hi");
    expect(ofType("compaction.blocked").map((e) => e.reason)).toEqual(["cooldown:120"]);
  });

  it("runs one maintenance pass when shouldCompressPreflight says so", async () => {
    server.script([{ content: "ok" }]);
    const engine = new RecordingEngine();
    engine.shouldCompressPreflight = (messages) => {
      engine.calls.push({ hook: "shouldCompressPreflight", args: [messages.length] });
      return true;
    };
    const { host, ofType } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 8000, history: conversation(3) });
    await session.send("hi");
    expect(ofType("compaction.started").map((e) => e.trigger)).toEqual(["maintenance"]);
    // The engine's cheap preflight first, then the threshold check on the estimate.
    expect(engine.hooks().slice(2, 6)).toEqual(["shouldCompressPreflight", "shouldCompress", "compress", "onSessionStart"]);
    expect(engine.calls[2]!.args).toEqual([7]);
  });
});

describe("window limits", () => {
  it("never sends a request that cannot fit the window: the turn ends with a typed error", async () => {
    const engine = new RecordingEngine();
    engine.forceShouldCompress = false;
    engine.compress = async (messages) => messages;
    const { host, ofType } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 60 });
    const result = await session.send("x ".repeat(400));
    expect(result.status).toBe("failed");
    expect(result.exitReason).toBe("context_budget_exceeded");
    expect(result.error).toBeInstanceOf(ContextBudgetExceededError);
    const err = result.error as ContextBudgetExceededError;
    expect(err.contextLength).toBe(60);
    expect(err.estimatedTokens).toBeGreaterThan(60);
    expect(server.requests).toHaveLength(0);
    expect(ofType("request.over_budget")).toHaveLength(1);
    // One forced attempt was made before giving up.
    expect(ofType("compaction.started")[0]).toMatchObject({ trigger: "over_window", force: true });
  });

  it("answers a context-length rejection with one forced compaction and a retry", async () => {
    server.script([
      { status: 400, error: { message: "This model's maximum context length is 4096 tokens", code: "context_length_exceeded" } },
      { content: "fits now" },
    ]);
    const engine = new RecordingEngine();
    engine.forceShouldCompress = false;
    const { host, ofType } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 100_000, history: conversation(6) });
    const result = await session.send("go on");
    expect(result.status).toBe("completed");
    expect(result.text).toBe("fits now");
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.body.messages.length).toBeLessThan(server.requests[0]!.body.messages.length);
    expect(ofType("compaction.committed")[0]!.trigger).toBe("overflow");
    expect(compressOptions(engine)[0]!.force).toBe(true);
  });

  it("fails with a typed context_length error when the retry is rejected too", async () => {
    server.script(() => ({ status: 400, error: { message: "maximum context length exceeded", code: "context_length_exceeded" } }));
    const engine = new RecordingEngine();
    engine.forceShouldCompress = false;
    const { host } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 100_000, history: conversation(6) });
    const result = await session.send("go on");
    expect(result.status).toBe("failed");
    expect(result.exitReason).toBe("provider_error:context_length");
    expect(server.requests).toHaveLength(2);
  });

  it("never loops on context-length rejections: one forced compaction, one retry, each rejection reported once", async () => {
    server.script(() => ({ status: 400, error: { message: "maximum context length exceeded", code: "context_length_exceeded" } }));
    const engine = new RecordingEngine();
    engine.forceShouldCompress = false;
    const { host, ofType } = makeHost(server, { engine, config: { maxRetries: 5, maxCompressionAttempts: 5 } });
    const session = await host.openSession({ model: "test-model", contextLength: 100_000, history: conversation(6) });
    const result = await session.send("go on");
    expect(result).toMatchObject({ status: "failed", exitReason: "provider_error:context_length", apiCalls: 2 });
    expect(result.error).toMatchObject({ kind: "context_length", status: 400 });
    expect(server.requests).toHaveLength(2);
    expect(ofType("compaction.started").map((e) => [e.trigger, e.force])).toEqual([["overflow", true]]);
    expect(compressOptions(engine).map((o) => o.force)).toEqual([true]);
    expect(ofType("provider.error").map((e) => [e.requestIndex, e.kind, e.willRetry])).toEqual([
      [1, "context_length", true],
      [2, "context_length", false],
    ]);
  });

  it("says the context-length rejection is final when the forced compaction cannot shrink anything", async () => {
    server.script(() => ({ status: 400, error: { message: "maximum context length exceeded", code: "context_length_exceeded" } }));
    const engine = new RecordingEngine();
    engine.forceShouldCompress = false;
    engine.compress = async (messages) => messages;
    const { host, ofType } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 100_000, history: conversation(2) });
    const result = await session.send("go on");
    expect(result.exitReason).toBe("provider_error:context_length");
    expect(server.requests).toHaveLength(1);
    expect(ofType("compaction.unchanged")).toHaveLength(1);
    expect(ofType("provider.error").map((e) => [e.kind, e.willRetry])).toEqual([["context_length", false]]);
  });
});

describe("manual /compress", () => {
  it("passes force and the focus topic", async () => {
    const engine = new RecordingEngine();
    const { host } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 8000, history: conversation(4) });
    const result = await session.compress("  the database schema ");
    expect(result.status).toBe("committed");
    expect(compressOptions(engine)[0]).toMatchObject({ force: true, focusTopic: "the database schema" });
    expect(JSON.stringify(session.messages)).toContain("focus: the database schema");
    expect(session.status().lastPromptTokens).toBe(-1);
  });

  it("says nothing to compress when the engine has no content", async () => {
    const engine = new RecordingEngine();
    engine.hasContentToCompress = () => false;
    const { host } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    expect(await session.compress()).toEqual({ status: "nothing_to_compress" });
    expect(engine.hooks()).not.toContain("compress");
  });

  it("runs the upstream end → commit → start sequence when configured", async () => {
    const engine = new RecordingEngine();
    const { host } = makeHost(server, { engine, config: { compactionBoundary: "end-and-start" } });
    const session = await host.openSession({ model: "test-model", contextLength: 8000, history: conversation(4) });
    await session.compress();
    expect(engine.hooks().slice(2)).toEqual(["compress", "onSessionEnd", "onSessionStart"]);
    expect((engine.calls.find((c) => c.hook === "onSessionEnd")!.args[1] as Message[]).length).toBe(8);
  });
});

describe("timeouts", () => {
  it("discards a pass that finishes after the host timeout, and aborts its signal", async () => {
    const engine = new RecordingEngine();
    engine.compressDelayMs = 5_000;
    const { host, ofType } = makeHost(server, { engine, config: { contextTimeoutSeconds: 0.05 } });
    const session = await host.openSession({ model: "test-model", contextLength: 8000, history: conversation(4) });
    const before = JSON.stringify(session.messages);
    const discarded = new Promise((resolve) => host.on("compaction.discarded", resolve));
    const result = await session.compress();
    expect(result.status).toBe("timed_out");
    expect(ofType("compaction.timed_out")[0]).toMatchObject({ timeoutSeconds: 0.05, trigger: "manual" });
    expect(compressOptions(engine)[0]!.signal!.aborted).toBe(true);
    // The engine returns a compacted list after the abort: it must publish nothing.
    await discarded;
    expect(JSON.stringify(session.messages)).toBe(before);
    // The engine's own late write to its public figures was undone too.
    expect(engine.compressionCount).toBe(0);
    expect(session.status().compactions).toBe(0);
    expect(ofType("compaction.committed")).toHaveLength(0);
  });

  it("does not compact again in a turn after a timeout, and does not send an over-window request", async () => {
    const engine = new RecordingEngine();
    engine.compressDelayMs = 5_000;
    engine.forceShouldCompress = true;
    const { host, ofType } = makeHost(server, { engine, config: { contextTimeoutSeconds: 0.05 } });
    const session = await host.openSession({ model: "test-model", contextLength: 500, history: conversation(4) });
    const result = await session.send("more");
    expect(result.exitReason).toBe("context_budget_exceeded");
    expect(ofType("compaction.timed_out")).toHaveLength(1);
    expect(ofType("compaction.started")).toHaveLength(1);
    expect(server.requests).toHaveLength(0);
  });

  it("with the timeout disabled (0) a slow pass still commits", async () => {
    const engine = new RecordingEngine();
    engine.compressDelayMs = 100;
    const { host } = makeHost(server, { engine, config: { contextTimeoutSeconds: 0 } });
    const session = await host.openSession({ model: "test-model", contextLength: 8000, history: conversation(4) });
    expect((await session.compress()).status).toBe("committed");
  });
});
