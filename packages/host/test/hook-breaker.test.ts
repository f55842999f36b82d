import type { Message, SessionStartOptions } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { hostConfigFromFile, resolveHostConfig } from "../src/index.js";
import { HookBreaker } from "../src/session/hook-breaker.js";
import { RecordingEngine } from "./support/engines.js";
import { makeHost, useFakeServer } from "./support/setup.js";

const server = useFakeServer();
const BOUND_MS = 1_500;
const EVERY_HOOK_BOUND = Object.fromEntries(Object.keys(resolveHostConfig({}).hookTimeouts).map((hook) => [hook, BOUND_MS]));

/** An engine whose `onSessionStart` never settles (a store that cannot be opened). */
class HungStartEngine extends RecordingEngine {
  override onSessionStart(sessionId: string, options?: SessionStartOptions): Promise<void> {
    this.record("onSessionStart", sessionId, options);
    return new Promise<void>(() => {});
  }
  startCalls(): number {
    return this.hooks().filter((h) => h === "onSessionStart").length;
  }
}

function conversation(pairs: number): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < pairs; i++) {
    out.push({ role: "user", content: `question ${i}: ${"lorem ipsum ".repeat(20)}` });
    out.push({ role: "assistant", content: `answer ${i}: ${"dolor sit amet ".repeat(20)}` });
  }
  return out;
}

const highUsage = { prompt_tokens: 7000, completion_tokens: 10, total_tokens: 7010 };

describe("a hung onSessionStart at compaction boundaries, through the real host", () => {
  it("holds a turn that compacts several times for one bound, not attempts × bound; repeated timeouts open the breaker", async () => {
    // Preflight compaction, then two tool steps whose real usage is over the threshold: three commits.
    const toolStep = (id: string) => ({ toolCalls: [{ id, name: "read_file", arguments: {} }], usage: highUsage });
    server.script([toolStep("t1"), toolStep("t2"), { content: "done", usage: { prompt_tokens: 300, completion_tokens: 3, total_tokens: 303 } }]);
    const engine = new HungStartEngine();
    engine.thresholdPercent = 0.05;
    const { host, ofType } = makeHost(server, {
      engine,
      config: { hookTimeouts: EVERY_HOOK_BOUND },
      tools: [{ name: "read_file", parameters: { type: "object" } }],
      executeTool: () => "file body",
    });
    const session = await host.openSession({ model: "test-model", contextLength: 8000, systemPrompt: "sys", history: conversation(10) });
    expect(engine.startCalls()).toBe(1);

    const started = performance.now();
    const result = await session.send("read it twice");
    const elapsedMs = performance.now() - started;

    expect(result.status).toBe("completed");
    const commits = ofType("compaction.committed").length;
    expect(commits).toBeGreaterThanOrEqual(2);
    // Awaited at the first boundary only; the later boundaries of the turn skip it.
    expect(engine.startCalls()).toBe(2);
    const boundaryFailures = ofType("hook.failed").filter((e) => e.hook === "onSessionStart" && e.turnId === result.turnId);
    expect(boundaryFailures.map((e) => e.reason)).toEqual(["timeout", ...Array(commits - 1).fill("skipped")]);
    // Waiting at every boundary would take at least commits × bound.
    expect(elapsedMs).toBeLessThan(commits * BOUND_MS);

    // The third consecutive timeout (after the one at open and the turn's) opens the breaker:
    // the next boundary does not call the hook at all.
    expect((await session.compress()).status).toBe("committed");
    expect(engine.startCalls()).toBe(3);
    expect(ofType("hook.failed").at(-1)).toMatchObject({ hook: "onSessionStart", reason: "timeout" });
    expect((await session.compress()).status).toBe("committed");
    expect(engine.startCalls()).toBe(3);
    expect(ofType("hook.failed").at(-1)).toMatchObject({ hook: "onSessionStart", reason: "skipped" });
    expect(ofType("hook.failed").at(-1)!.error).toMatch(/breaker open/);
    await host.close();
  }, 20_000);
});

describe("HookBreaker", () => {
  const make = (openAfter = 3, retryAfterMs = 1_000) => {
    let now = 0;
    const breaker = new HookBreaker({ openAfter, retryAfterMs }, () => now);
    return { breaker, advance: (ms: number) => (now += ms) };
  };

  it("skips a hook for the rest of the turn in which it timed out, and only that hook", () => {
    const { breaker } = make();
    breaker.recordTimeout("onSessionStart", "turn-1");
    expect(breaker.skipReason("onSessionStart", "turn-1")).toBe("timed out earlier in this turn");
    expect(breaker.skipReason("selectContext", "turn-1")).toBeNull();
    expect(breaker.skipReason("onSessionStart", "turn-2")).toBeNull();
    expect(breaker.skipReason("onSessionStart", null)).toBeNull();
  });

  it("opens after consecutive timeouts, lets one trial through after the wait, and closes when it settles", () => {
    const { breaker, advance } = make(2, 1_000);
    breaker.recordTimeout("onTurnComplete", "a");
    expect(breaker.isOpen("onTurnComplete")).toBe(false);
    breaker.recordTimeout("onTurnComplete", "b");
    expect(breaker.skipReason("onTurnComplete", "c")).toBe("breaker open");
    advance(1_000);
    expect(breaker.skipReason("onTurnComplete", "c")).toBeNull();
    // The trial times out again: open again straight away.
    breaker.recordTimeout("onTurnComplete", "c");
    expect(breaker.skipReason("onTurnComplete", "d")).toBe("breaker open");
    advance(1_000);
    breaker.recordSettled("onTurnComplete");
    expect(breaker.isOpen("onTurnComplete")).toBe(false);
    breaker.recordTimeout("onTurnComplete", "e");
    expect(breaker.skipReason("onTurnComplete", "f")).toBeNull();
  });

  it("never opens across turns with openAfter 0", () => {
    const { breaker } = make(0);
    for (let i = 0; i < 10; i++) breaker.recordTimeout("selectContext", `t${i}`);
    expect(breaker.skipReason("selectContext", "next")).toBeNull();
  });

  it("is configured from config.yaml's host.hook_breaker and validated", () => {
    expect(resolveHostConfig({}).hookBreaker).toEqual({ openAfter: 3, retryAfterMs: 60_000 });
    const fromFile = hostConfigFromFile({ host: { hook_breaker: { open_after: 5, retry_after_ms: 10_000 } } });
    expect(resolveHostConfig(fromFile).hookBreaker).toEqual({ openAfter: 5, retryAfterMs: 10_000 });
    expect(() => hostConfigFromFile({ host: { hook_breaker: { open_after: -1 } } })).toThrow(/open_after/);
  });
});
