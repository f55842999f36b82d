import type { Message } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { ChatModelError } from "@context-engine/core";
import { AgentHost, SessionClosedError, createOpenAIChatModel, parseSlashCommand, runSlashCommand } from "../src/index.js";
import { RecordingEngine, SelectingEngine } from "./support/engines.js";
import { makeHost, useFakeServer } from "./support/setup.js";

const server = useFakeServer();

describe("session lifecycle", () => {
  it("assigns model thresholds before the first updateModel and starts the session with its options", async () => {
    const engine = new RecordingEngine();
    let thresholdsAtUpdate: unknown;
    const original = engine.updateModel.bind(engine);
    engine.updateModel = (model, ctx, opts) => {
      thresholdsAtUpdate = { ...engine.modelThresholds };
      original(model, ctx, opts);
    };
    const { host } = makeHost(server, { engine, config: { modelThresholds: { "gpt-4o": 0.5 } } });
    const session = await host.openSession({ model: "gpt-4o-mini", contextLength: 10_000, provider: "openai", dataDir: "/tmp/x", platform: "cli" });
    expect(thresholdsAtUpdate).toEqual({ "gpt-4o": 0.5 });
    expect(engine.thresholdTokens).toBe(5_000);
    const start = engine.calls.find((c) => c.hook === "onSessionStart")!;
    expect(start.args).toEqual([session.id, { model: "gpt-4o-mini", contextLength: 10_000, dataDir: "/tmp/x", platform: "cli" }]);
  });

  it("/new ends the old session, resets the engine and starts a fresh one", async () => {
    server.script([{ content: "a" }, { content: "b" }]);
    const engine = new RecordingEngine();
    const { host, ofType } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 8000, systemPrompt: "sys" });
    await session.send("hello");
    const oldId = session.id;
    engine.calls.length = 0;
    const out = await runSlashCommand(session, parseSlashCommand("/new")!);
    expect(out.output).toMatch(/new conversation/);
    expect(engine.hooks()).toEqual(["onSessionEnd", "onSessionReset", "onSessionStart"]);
    expect(engine.calls[0]!.args[0]).toBe(oldId);
    expect((engine.calls[0]!.args[1] as Message[]).length).toBe(3);
    expect(session.id).not.toBe(oldId);
    expect(engine.calls[2]!.args[1]).toMatchObject({ boundaryReason: "reset", oldSessionId: oldId });
    expect(session.messages).toEqual([{ role: "system", content: "sys" }]);
    expect(engine.lastPromptTokens).toBe(0);
    expect(ofType("session.reset")[0]).toMatchObject({ sessionId: session.id, previousSessionId: oldId });
    await session.send("again");
    expect(server.requests[1]!.body.messages).toEqual([
      { role: "system", content: "sys" },
      { role: "user", content: "again" },
    ]);
  });

  it("never calls onSessionEnd per turn; end() calls it once and closes the session", async () => {
    server.script([{ content: "1" }, { content: "2" }]);
    const engine = new RecordingEngine();
    const { host } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    await session.send("a");
    await session.send("b");
    expect(engine.hooks()).not.toContain("onSessionEnd");
    await session.end();
    await session.end();
    expect(engine.hooks().filter((h) => h === "onSessionEnd")).toHaveLength(1);
    await expect(session.send("c")).rejects.toBeInstanceOf(SessionClosedError);
    expect(host.sessions).toHaveLength(0);
  });

  it("close() ends every open session; expiry ends idle ones", async () => {
    const engine = new RecordingEngine();
    const { host, ofType } = makeHost(server, { engine });
    const a = await host.openSession({ model: "test-model", contextLength: 8000 });
    await host.openSession({ model: "test-model", contextLength: 8000 });
    expect(await host.expireIdleSessions(0)).toBe(2);
    expect(ofType("session.ended").map((e) => e.reason)).toEqual(["expired", "expired"]);
    expect(a.ended).toBe(true);
    await host.openSession({ model: "test-model", contextLength: 8000 });
    await host.close();
    expect(ofType("session.ended").map((e) => e.reason)).toEqual(["expired", "expired", "close"]);
  });

  it("/model switches the model of the next requests and calls updateModel", async () => {
    server.script([{ content: "ok" }]);
    const engine = new RecordingEngine();
    const { host } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    const out = await runSlashCommand(session, parseSlashCommand("/model bigger-model 32k")!);
    expect(out.output).toMatch(/bigger-model/);
    expect(engine.calls.at(-1)).toMatchObject({ hook: "updateModel", args: ["bigger-model", 32_000, {}] });
    expect(engine.contextLength).toBe(32_000);
    await session.send("hi");
    expect(server.requests[0]!.body.model).toBe("bigger-model");
  });

  it("/status and /engine describe the session", async () => {
    const engine = new SelectingEngine();
    const { host } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    const status = await runSlashCommand(session, parseSlashCommand("/status")!);
    expect(status.status).toMatchObject({ engine: "selecting", model: "test-model", contextLength: 8000, engineTools: ["ctx_search"] });
    expect(status.output).toMatch(/engine selecting/);
    expect((await runSlashCommand(session, parseSlashCommand("/engine")!)).output).toBe("Context engine: selecting (tools: ctx_search)");
    // An engine that says how its search retrieves (getStatus().retrieval) has it shown.
    const plain = engine.getStatus.bind(engine);
    engine.getStatus = () => ({ ...plain(), retrieval: "hybrid (words + m vectors)" });
    expect((await runSlashCommand(session, parseSlashCommand("/engine")!)).output).toBe("Context engine: selecting (tools: ctx_search; retrieval: hybrid (words + m vectors))");
  });

  it("fails open on throwing lifecycle hooks", async () => {
    server.script([{ content: "still works" }]);
    const engine = new RecordingEngine();
    engine.onSessionStart = () => {
      throw new Error("db locked");
    };
    engine.updateFromResponse = () => {
      throw new Error("bad usage handling");
    };
    engine.shouldCompress = () => {
      throw new Error("bad gate");
    };
    const { host, ofType } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    const result = await session.send("hi");
    expect(result.status).toBe("completed");
    expect(ofType("hook.failed").map((e) => e.hook)).toEqual(expect.arrayContaining(["onSessionStart", "updateFromResponse", "shouldCompress"]));
  });

  it("interrupts a turn on abort, keeping the transcript valid", async () => {
    server.script([{ toolCalls: [{ name: "slow", arguments: {} }, { name: "slow", arguments: {} }] }, { content: "never" }]);
    const controller = new AbortController();
    const { host } = makeHost(server, {
      engine: new SelectingEngine(),
      tools: [{ name: "slow", parameters: { type: "object" } }],
      executeTool: () => {
        controller.abort();
        return "partial";
      },
    });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    const result = await session.send("go", { signal: controller.signal });
    expect(result.status).toBe("interrupted");
    const tools = session.messages.filter((m) => m.role === "tool");
    expect(tools).toHaveLength(2);
    expect(tools[1]!.content).toMatch(/interrupted/);
    expect(server.requests).toHaveLength(1);
  });

  it("interrupts a slow provider request", async () => {
    const controller = new AbortController();
    server.script(() => {
      setTimeout(() => controller.abort(), 20);
      return { content: "late", delayMs: 5_000 };
    });
    const { host } = makeHost(server, { engine: new RecordingEngine() });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    const result = await session.send("go", { signal: controller.signal });
    expect(result).toMatchObject({ status: "interrupted", exitReason: "interrupted", message: null });
  });

  it("validates its inputs", async () => {
    const engine = new RecordingEngine();
    expect(() => new AgentHost({ engine: {} as never, chatModel: { complete: async () => ({ message: { role: "assistant", content: "" } }) } })).toThrow(/engine/);
    expect(() => makeHost(server, { engine, config: { contextTimeoutSeconds: -1 } as never })).toThrow(/contextTimeoutSeconds/);
    const { host } = makeHost(server, { engine });
    await expect(host.openSession({ model: "" })).rejects.toThrow(/model/);
    const session = await host.openSession({ model: "m", contextLength: 8000 });
    await expect(session.send({ role: "assistant", content: "x" } as never)).rejects.toThrow(/user message/);
  });

  it("retries a flaky provider inside the host and reports each error", async () => {
    server.script([{ status: 429, error: { message: "slow down" } }, { destroy: true }, { content: "ok" }]);
    const { host, ofType } = makeHost(server, { engine: new RecordingEngine() });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    const result = await session.send("hi");
    expect(result.status).toBe("completed");
    expect(ofType("provider.error").map((e) => [e.kind, e.willRetry])).toEqual([
      ["rate_limit", true],
      ["network", true],
    ]);
    expect(ofType("provider.request").map((e) => e.attempt)).toEqual([0, 1, 2]);
  });

  it("ends the turn with a clear, typed auth error on 401, without retrying", async () => {
    const engine = new SelectingEngine();
    const { host, ofType } = makeHost(server, {
      engine,
      chatModel: createOpenAIChatModel({ baseURL: server.baseURL, apiKey: "bad", model: "m", retryBaseDelayMs: 1 }),
      config: { maxRetries: 5 },
    });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    const result = await session.send("hi");
    await session.idle();
    expect(result).toMatchObject({ status: "failed", exitReason: "provider_error:auth", apiCalls: 1, message: null });
    expect(ChatModelError.is(result.error)).toBe(true);
    expect(result.error).toMatchObject({ kind: "auth", status: 401 });
    expect(result.error?.message).toMatch(/API key/);
    expect(ofType("provider.request")).toHaveLength(1);
    expect(ofType("provider.error").map((e) => [e.kind, e.willRetry])).toEqual([["auth", false]]);
    expect(engine.hooks()).not.toContain("updateFromResponse");
    const done = engine.calls.find((c) => c.hook === "onTurnComplete")!;
    expect(done.args[1]).toBeNull();
    expect(done.args[2]).toMatchObject({ failed: true, interrupted: false, exitReason: "provider_error:auth" });
  });
});

describe("fail-open on every other hook", () => {
  it("carries on when the remaining hooks throw or return garbage", async () => {
    server.script([{ toolCalls: [{ name: "t", arguments: {} }] }, { content: "fine" }]);
    const engine = new RecordingEngine();
    const boom = (hook: string) => () => {
      throw new Error(`${hook} broke`);
    };
    engine.updateModel = boom("updateModel");
    engine.shouldCompressPreflight = boom("shouldCompressPreflight");
    engine.pruneToolResultsOnly = () => ({ messages: "nope", pruned: 3 }) as never;
    engine.getStatus = boom("getStatus");
    engine.hasContentToCompress = boom("hasContentToCompress");
    engine.onSessionEnd = boom("onSessionEnd");
    engine.onSessionReset = boom("onSessionReset");
    const { host, ofType } = makeHost(server, { engine, tools: [{ name: "t", parameters: { type: "object" } }], executeTool: () => "r" });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    const result = await session.send("go");
    expect(result.status).toBe("completed");
    expect(session.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(session.status().engineStatus).toBeNull();
    expect((await session.compress()).status).toBe("committed"); // hasContentToCompress threw → assume there is content
    await session.reset();
    await session.end();
    expect(new Set(ofType("hook.failed").map((e) => e.hook))).toEqual(
      new Set(["updateModel", "shouldCompressPreflight", "getStatus", "hasContentToCompress", "onSessionEnd", "onSessionReset"]),
    );
    expect(ofType("tool_results.pruned")).toHaveLength(0);
  });

  it("a throwing event listener never disturbs the turn", async () => {
    server.script([{ content: "fine" }]);
    const { host } = makeHost(server, { engine: new RecordingEngine() });
    host.on("provider.request", () => {
      throw new Error("listener bug");
    });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    expect((await session.send("go")).status).toBe("completed");
  });
});

describe("idle expiry", () => {
  it("never expires a session while a turn is running", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    server.script(async () => {
      await gate;
      return { content: "done" };
    });
    const { host } = makeHost(server, { engine: new RecordingEngine() });
    const s = await host.openSession({ model: "test-model", contextLength: 8000 });
    const turn = s.send("slow");
    await new Promise((r) => setTimeout(r, 20));
    expect(s.busy).toBe(true);
    expect(await host.expireIdleSessions(0)).toBe(0);
    release();
    expect((await turn).status).toBe("completed");
    expect(s.busy).toBe(false);
    expect(await host.expireIdleSessions(0)).toBe(1);
  });
});
