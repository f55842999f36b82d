import type { Message, SelectContextOptions, SessionStartOptions, ToolCallOptions, TurnCompleteMeta, Usage } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { HookTimeoutsSchema, resolveHostConfig } from "../src/index.js";
import { SelectingEngine } from "./support/engines.js";
import { makeHost, useFakeServer } from "./support/setup.js";

const server = useFakeServer();

/** Never settles. */
const never = <T>() => new Promise<T>(() => {});

/** An engine whose retrieval backend is down: every hook the host awaits hangs forever. */
class HungEngine extends SelectingEngine {
  override get name(): string {
    return "hung";
  }
  override updateModel(): Promise<void> {
    this.record("updateModel");
    return never();
  }
  override onSessionStart(_id: string, _options?: SessionStartOptions): Promise<void> {
    this.record("onSessionStart");
    return never();
  }
  override onSessionEnd(): Promise<void> {
    this.record("onSessionEnd");
    return never();
  }
  override onSessionReset(): Promise<void> {
    this.record("onSessionReset");
    return never();
  }
  override selectContext(_request: Message[], _options?: SelectContextOptions): Message[] | null {
    this.record("selectContext");
    return never() as never;
  }
  override onTurnComplete(_messages: readonly Message[], _usage?: Usage | null, _meta?: TurnCompleteMeta): void {
    this.record("onTurnComplete");
    return never() as never;
  }
  override handleToolCall(_name: string, _args: unknown, _options?: ToolCallOptions): string {
    this.record("handleToolCall");
    return never() as never;
  }
}

/** Observation that takes as long as the test says. */
class SlowObserver extends SelectingEngine {
  observe: () => Promise<unknown> = () => Promise.resolve();
  override onTurnComplete(messages: readonly Message[], usage?: Usage | null, meta?: TurnCompleteMeta): void {
    this.record("onTurnComplete", messages, usage, meta);
    return this.observe() as never;
  }
}

const SHORT = { selectContext: 20, onTurnComplete: 20, handleToolCall: 20, onSessionStart: 20, onSessionEnd: 20, onSessionReset: 20, updateModel: 20 };

describe("default hook bounds", () => {
  it("cost a hung engine a few seconds per call at most (engine tools: 15 s)", () => {
    const { hookTimeouts } = resolveHostConfig({});
    for (const [hook, ms] of Object.entries(hookTimeouts)) {
      expect(ms, hook).toBeGreaterThan(0);
      expect(ms, hook).toBeLessThanOrEqual(hook === "handleToolCall" ? 15_000 : 5_000);
    }
    expect(Object.keys(hookTimeouts).sort()).toEqual(Object.keys(HookTimeoutsSchema.shape).sort());
  });
});

describe("an engine whose every hook hangs, through the real host", () => {
  it("opens, answers, runs tools, resets and ends: every call settles at its bound and fails open", async () => {
    server.script([{ toolCalls: [{ id: "t1", name: "ctx_search", arguments: { query: "q" } }] }, { content: "answer 1" }, { content: "answer 2" }]);
    const engine = new HungEngine();
    const { host, ofType } = makeHost(server, { engine, config: { hookTimeouts: SHORT } });
    const session = await host.openSession({ model: "test-model", contextLength: 8000, systemPrompt: "sys" });

    const first = await session.send("look it up");
    expect(first.status).toBe("completed");
    expect(first.text).toBe("answer 1");
    // The tool call became a tool error for the model; the unselected request went out.
    const tool = session.messages.find((m) => m.role === "tool")!;
    expect(String(tool.content)).toMatch(/error/i);
    expect(server.requests[0]!.body.messages).toEqual([{ role: "system", content: "sys" }, { role: "user", content: "look it up" }]);

    // The next turn waits for the hung observation only up to its bound.
    const second = await session.send("again");
    expect(second.status).toBe("completed");
    await session.reset();
    await session.end();
    await host.close();

    const timedOut = new Set(ofType("hook.failed").filter((e) => e.reason === "timeout").map((e) => e.hook));
    for (const hook of ["updateModel", "onSessionStart", "selectContext", "onTurnComplete", "handleToolCall", "onSessionEnd", "onSessionReset"]) {
      expect(timedOut.has(hook), hook).toBe(true);
    }
  });
});

describe("onTurnComplete after the answer", () => {
  it("runs once the caller has the result, and settles before the next turn's selection", async () => {
    server.script([{ content: "first" }, { content: "second" }]);
    const engine = new SlowObserver();
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    engine.observe = () => {
      order.push("observe:start");
      return gate.then(() => order.push("observe:end"));
    };
    engine.selectImpl = () => {
      order.push("select");
      return null;
    };
    // No bound on observation: the answer must not wait for it anyway.
    const { host } = makeHost(server, { engine, config: { hookTimeouts: { onTurnComplete: 0 } } });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });

    const first = await session.send("one");
    order.push("answer");
    expect(first.text).toBe("first");
    expect(session.busy).toBe(true);

    const next = session.send("two");
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(["select", "answer", "observe:start"]);
    release();
    expect((await next).text).toBe("second");
    await session.idle();
    expect(order.slice(3)).toEqual(["observe:end", "select", "observe:start", "observe:end"]);
    expect(session.busy).toBe(false);
    await host.close();
  });

  it("is awaited, within its bound, before the session ends", async () => {
    server.script([{ content: "ok" }]);
    const engine = new SlowObserver();
    const order: string[] = [];
    engine.observe = () => new Promise<void>((resolve) => setTimeout(() => {
      order.push("observed");
      resolve();
    }, 5));
    const { host } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    await session.send("hi");
    await session.end();
    order.push("ended");
    expect(order).toEqual(["observed", "ended"]);
    expect(engine.hooks().indexOf("onTurnComplete")).toBeLessThan(engine.hooks().indexOf("onSessionEnd"));
  });
});
