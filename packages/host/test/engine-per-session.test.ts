import { loadEngine } from "@context-engine/plugin-loader";
import { describe, expect, it } from "vitest";
import { AgentHost, createOpenAIChatModel, hostConfigFromFile, resolveHostConfig } from "../src/index.js";
import { RecordingEngine } from "./support/engines.js";
import { useFakeServer } from "./support/setup.js";

const server = useFakeServer();
const chatModel = () => createOpenAIChatModel({ baseURL: server.baseURL, apiKey: server.apiKey, model: "m", retryBaseDelayMs: 1 });

describe("one engine per session", () => {
  it("gives each session its own engine from the factory, so one session's model never moves another's threshold", async () => {
    const built: RecordingEngine[] = [];
    const host = new AgentHost({
      engineFactory: (ctx) => {
        const engine = new RecordingEngine(ctx);
        built.push(engine);
        return engine;
      },
      engineContext: { contextLength: 128_000 },
      chatModel: chatModel(),
    });
    const big = await host.openSession({ model: "big", contextLength: 128_000 });
    const before = big.engine.thresholdTokens;
    const small = await host.openSession({ model: "small", contextLength: 8_000 });
    expect(built).toHaveLength(2);
    expect(big.engine).toBe(host.engine);
    expect(small.engine).not.toBe(big.engine);
    expect(small.engine.thresholdTokens).toBeLessThan(before);
    expect(big.engine.thresholdTokens).toBe(before);
    await small.switchModel("tiny", 4_000);
    expect(big.engine.thresholdTokens).toBe(before);
    server.script([{ content: "a", usage: { prompt_tokens: 100, completion_tokens: 1, total_tokens: 101 } }, { content: "b", usage: { prompt_tokens: 7, completion_tokens: 1, total_tokens: 8 } }]);
    await big.send("hi");
    await small.send("hi");
    expect(big.engine.lastPromptTokens).toBe(100);
    expect(small.engine.lastPromptTokens).toBe(7);
    await host.close();
  });

  it("shares one engine when given only an engine (the legacy wiring)", async () => {
    const engine = new RecordingEngine();
    const host = new AgentHost({ engine, chatModel: chatModel() });
    const a = await host.openSession({ model: "m" });
    const b = await host.openSession({ model: "m" });
    expect(a.engine).toBe(engine);
    expect(b.engine).toBe(engine);
    await host.close();
  });

  it("fails openSession with a typed error when the factory throws", async () => {
    let n = 0;
    const host = new AgentHost({
      engineFactory: () => {
        if (n++ > 0) throw new Error("no more engines");
        return new RecordingEngine();
      },
      chatModel: chatModel(),
    });
    await host.openSession({ model: "m" });
    await expect(host.openSession({ model: "m" })).rejects.toMatchObject({ code: "engine_unavailable" });
    await host.close();
  });

  it("the loader's createEngine builds a fresh built-in compressor per call", async () => {
    const loaded = await loadEngine(undefined, { contextLength: 64_000, model: "m" }, { env: {}, home: "/nonexistent-context-engine-home" });
    expect(loaded.createEngine).not.toBeNull();
    const one = loaded.createEngine!({ contextLength: 8_000 });
    const two = loaded.createEngine!({ contextLength: 32_000 });
    expect(one).not.toBe(two);
    expect(one).not.toBe(loaded.engine);
    expect(one.name).toBe(loaded.engine.name);
  });
});

describe("hook timeouts", () => {
  it("default to sane bounds and read host.hook_timeouts from config.yaml", () => {
    const defaults = resolveHostConfig({}).hookTimeouts;
    expect(defaults.selectContext).toBeGreaterThan(0);
    expect(defaults.onSessionEnd).toBeGreaterThan(0);
    const fromFile = resolveHostConfig(hostConfigFromFile({ host: { hook_timeouts: { select_context: 250, on_turn_complete: 0 } } }));
    expect(fromFile.hookTimeouts.selectContext).toBe(250);
    expect(fromFile.hookTimeouts.onTurnComplete).toBe(0);
    expect(fromFile.hookTimeouts.updateModel).toBe(defaults.updateModel);
    expect(() => hostConfigFromFile({ host: { hook_timeouts: { select_context: -1 } } })).toThrow(/hook_timeouts\.select_context/);
    expect(() => hostConfigFromFile({ host: { hook_timeouts: { selectcontext: 5 } } })).toThrow(/hook_timeouts/);
  });

  it("a late settle after a timeout is reported as hook.late and ignored", async () => {
    const engine = new RecordingEngine();
    engine.onTurnComplete = () => new Promise<void>((resolve) => setTimeout(resolve, 60));
    const events: string[] = [];
    const host = new AgentHost({ engine, chatModel: chatModel(), config: { hookTimeouts: { onTurnComplete: 10 } }, onEvent: (e) => events.push(e.type === "hook.failed" ? `failed:${e.reason}` : e.type) });
    const session = await host.openSession({ model: "m" });
    server.script([{ content: "ok" }]);
    expect((await session.send("hi")).status).toBe("completed");
    await session.idle();
    expect(events).toContain("failed:timeout");
    await new Promise((r) => setTimeout(r, 80));
    expect(events).toContain("hook.late");
    await host.close();
  });
});

describe("hostile input", () => {
  it("refuses a user message nested 10,000 deep with a clear message", async () => {
    const host = new AgentHost({ engine: new RecordingEngine(), chatModel: chatModel() });
    const session = await host.openSession({ model: "m" });
    let deep: unknown = "x";
    for (let i = 0; i < 10_000; i++) deep = [deep];
    await expect(session.send({ role: "user", content: [{ type: "text", text: "hi", extra: deep }] } as never)).rejects.toThrow(/nested more than 64 levels/);
    await host.close();
  });
});
