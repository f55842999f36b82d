import { describe, expect, it } from "vitest";
import type { Message } from "@context-engine/core";
import { RecordingEngine, SelectingEngine } from "./support/engines.js";
import { makeHost, useFakeServer } from "./support/setup.js";

const server = useFakeServer();

describe("a turn end to end", () => {
  it("sends the conversation, persists the answer and reports usage to the engine", async () => {
    server.script([{ content: "Hello there!", usage: { prompt_tokens: 30, completion_tokens: 4, total_tokens: 34, prompt_tokens_details: { cached_tokens: 10 } } }]);
    const engine = new RecordingEngine();
    const { host, ofType } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 8000, systemPrompt: "You are terse." });
    const result = await session.send("hi");

    expect(result.status).toBe("completed");
    expect(result.text).toBe("Hello there!");
    expect(session.messages.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.body.messages).toEqual([
      { role: "system", content: "You are terse." },
      { role: "user", content: "hi" },
    ]);
    const usage = engine.calls.find((c) => c.hook === "updateFromResponse")!.args[0];
    expect(usage).toMatchObject({ prompt_tokens: 30, completion_tokens: 4, total_tokens: 34, cache_read_tokens: 10, input_tokens: 20, output_tokens: 4 });
    expect(engine.lastPromptTokens).toBe(30);

    const [request] = ofType("provider.request");
    expect(request!.messages).toEqual(server.requests[0]!.body.messages);
    expect(request!.selection).toBe("not_implemented");
    expect(request!.estimatedTokens).toBeGreaterThan(0);
    const [done] = ofType("turn.completed");
    expect(done).toMatchObject({ status: "completed", exitReason: "completed", apiCalls: 1 });
    await host.close();
  });

  it("calls the engine hooks in the documented order", async () => {
    server.script([{ toolCalls: [{ name: "ctx_search", arguments: { query: "x" } }] }, { content: "found it" }]);
    const engine = new SelectingEngine();
    const { host } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    await session.send("search please");
    await session.end();
    expect(engine.hooks()).toEqual([
      "updateModel",
      "onSessionStart",
      "shouldCompress",
      "selectContext",
      "updateFromResponse",
      "handleToolCall",
      "shouldCompress", // post-tool gate
      "selectContext", // the next request is assembled (selection first) ...
      "shouldCompress", // ... then the pre-API gate checks it
      "updateFromResponse",
      "onTurnComplete",
      "onSessionEnd",
    ]);
  });

  it("leaves the request byte-identical for an engine that does not select", async () => {
    const history: Message[] = [
      { role: "user", content: "earlier" },
      { role: "assistant", content: "noted" },
    ];
    const run = async (engine: RecordingEngine) => {
      server.reset().script([{ content: "ok" }]);
      const { host } = makeHost(server, { engine });
      const session = await host.openSession({ model: "test-model", contextLength: 8000, systemPrompt: "sys", history });
      await session.send("now");
      return JSON.stringify(server.requests[0]!.body.messages);
    };
    const plain = await run(new RecordingEngine());
    const noop = new SelectingEngine();
    const withNoopSelect = await run(noop);
    expect(withNoopSelect).toBe(plain);
    expect(noop.hooks()).toContain("selectContext");
  });
});
