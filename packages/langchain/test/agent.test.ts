import { describe, expect, it } from "vitest";
import { createAgent, HumanMessage } from "langchain";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { contextEngineMiddleware, toOpenAIMessages } from "../src/index.js";
import type { AdapterEvent } from "../src/index.js";
import { LatestOnlyEngine, RecordingEngine, ToolEngine, answer, fakeModel, texts, toolCallAnswer } from "./helpers.js";

const weather = tool(async (input: { city?: string }) => `sunny in ${input.city}`, {
  name: "get_weather",
  description: "Weather for a city",
  schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
});

describe("createAgent with a context engine", () => {
  it("sends the model exactly the engine's selection, and keeps the state's history whole", async () => {
    const engine = new LatestOnlyEngine();
    const model = fakeModel().respond(answer("first")).respond(answer("second"));
    const agent = createAgent({ model, systemPrompt: "You are terse.", middleware: [contextEngineMiddleware({ engine, contextLength: 32_000 })] });
    const first = await agent.invoke({ messages: [new HumanMessage("hello")] });
    const second = await agent.invoke({ messages: [...first.messages, new HumanMessage("and now?")] });

    // What the engine returned is what the model saw, message for message.
    expect(engine.selections).toHaveLength(2);
    const seen = toOpenAIMessages(model.calls[1]!.messages);
    expect(seen).toEqual(engine.returned[1]);
    expect(seen.map((m) => m.content)).toEqual([[{ type: "text", text: "You are terse." }], "[note from engine]", "and now?"]);
    // Selection is request-only: the agent's history has everything.
    expect(texts(second.messages)).toEqual(["human:hello", "ai:first", "human:and now?", "ai:second"]);
    // The engine was given the system prompt and the whole history.
    expect(engine.selections[1]!.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
  });

  it("feeds usage_metadata, cached and reasoning tokens included, to updateFromResponse", async () => {
    const engine = new RecordingEngine();
    const model = fakeModel().respond(answer("ok", { input: 900, output: 40, cacheRead: 700, reasoning: 12 }));
    const agent = createAgent({ model, middleware: [contextEngineMiddleware({ engine, contextLength: 10_000 })] });
    await agent.invoke({ messages: [new HumanMessage("hi")] });
    expect(engine.usages).toEqual([
      { prompt_tokens: 900, completion_tokens: 40, total_tokens: 940, input_tokens: 900, output_tokens: 40, cache_read_tokens: 700, reasoning_tokens: 12 },
    ]);
    expect(engine.lastPromptTokens).toBe(900);
    expect(engine.models[0]).toEqual([expect.any(String), 10_000]);
    expect(engine.thresholdTokens).toBe(7_500);
  });

  it("persists a compaction into the agent state; ids of kept messages survive", async () => {
    const engine = new (class extends RecordingEngine {
      override compress(messages: Parameters<RecordingEngine["compress"]>[0]) {
        this.compressions.push(structuredClone(messages));
        this.compressionCount++;
        const tail = messages.slice(-2);
        return [{ role: "user" as const, content: "[summary of earlier turns]" }, ...tail];
      }
    })();
    const model = fakeModel().respond(answer("a1")).respond(answer("a2"));
    const agent = createAgent({ model, middleware: [contextEngineMiddleware({ engine, contextLength: 10_000 })] });
    const config = { configurable: { thread_id: "t-compact" } };
    const first = await agent.invoke({ messages: [new HumanMessage("q1")] }, config);
    engine.compressNow = true;
    const out = await agent.invoke({ messages: [...first.messages, new HumanMessage("q2")] }, config);
    expect(engine.compressions).toHaveLength(1);
    expect(texts(model.calls[1]!.messages)).toEqual(["human:[summary of earlier turns]", "ai:a1", "human:q2"]);
    expect(texts(out.messages)).toEqual(["human:[summary of earlier turns]", "ai:a1", "human:q2", "ai:a2"]);
    const ids = out.messages.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    // After a committed compaction the engine waits for real usage.
    expect(engine.awaitingRealUsageAfterCompression).toBe(false);
    expect(engine.lastPromptTokens).toBe(120);
  });

  it("a compaction persisted in one run is the thread's history in the next (checkpointer)", async () => {
    const engine = new (class extends RecordingEngine {
      override compress(messages: Parameters<RecordingEngine["compress"]>[0]) {
        this.compressNow = false;
        return [{ role: "user" as const, content: "[summary]" }, ...messages.slice(-1)];
      }
    })();
    const model = fakeModel().respond(answer("a1")).respond(answer("a2")).respond(answer("a3"));
    const agent = createAgent({ model, checkpointer: new MemorySaver(), middleware: [contextEngineMiddleware({ engine, contextLength: 10_000 })] });
    const config = { configurable: { thread_id: "saved" } };
    await agent.invoke({ messages: [new HumanMessage("q1")] }, config);
    engine.compressNow = true;
    await agent.invoke({ messages: [new HumanMessage("q2")] }, config);
    const third = await agent.invoke({ messages: [new HumanMessage("q3")] }, config);
    expect(texts(model.calls[1]!.messages)).toEqual(["human:[summary]", "human:q2"]);
    expect(texts(model.calls[2]!.messages)).toEqual(["human:[summary]", "human:q2", "ai:a2", "human:q3"]);
    expect(texts(third.messages)).toEqual(["human:[summary]", "human:q2", "ai:a2", "human:q3", "ai:a3"]);
  });

  it("registers the engine's tools; tool pairs round-trip through the loop", async () => {
    const engine = new ToolEngine();
    const events: AdapterEvent[] = [];
    const model = fakeModel()
      .respond(toolCallAnswer([
        { id: "call_1", name: "engine_lookup", args: { query: "deadline" } },
        { id: "call_2", name: "get_weather", args: { city: "Oslo" } },
      ]))
      .respond(answer("done"));
    const agent = createAgent({ model, tools: [weather], middleware: [contextEngineMiddleware({ engine, onEvent: (e) => events.push(e) })] });
    const out = await agent.invoke({ messages: [new HumanMessage("when and what weather?")] }, { configurable: { thread_id: "tools" } });
    const toolResults = out.messages.filter((m) => m.type === "tool");
    expect(toolResults.map((m) => m.content)).toEqual([
      JSON.stringify({ query: "deadline", seen: 2, session: "tools" }),
      "sunny in Oslo",
    ]);
    const wire = toOpenAIMessages(model.calls[1]!.messages);
    expect(wire[1]).toMatchObject({ role: "assistant", tool_calls: [{ id: "call_1", function: { name: "engine_lookup", arguments: '{"query":"deadline"}' } }, { id: "call_2" }] });
    expect(wire.slice(2).map((m) => [m.role, (m as { tool_call_id?: string }).tool_call_id])).toEqual([
      ["tool", "call_1"],
      ["tool", "call_2"],
    ]);
    expect(events.filter((e) => e.type.endsWith("failed") || e.type === "selection.ignored")).toEqual([]);
  });

  it("one engine per thread from a factory", async () => {
    const built: RecordingEngine[] = [];
    const factory = () => {
      const e = new RecordingEngine();
      built.push(e);
      return e;
    };
    const model = fakeModel().respond(answer("x")).respond(answer("y"));
    const agent = createAgent({ model, middleware: [contextEngineMiddleware({ engine: factory, contextLength: 8_000 })] });
    await agent.invoke({ messages: [new HumanMessage("a")] }, { configurable: { thread_id: "A" } });
    await agent.invoke({ messages: [new HumanMessage("b")] }, { configurable: { thread_id: "B" } });
    expect(built.map((e) => e.sessionsStarted)).toEqual([["A"], ["B"]]);
    expect(built.map((e) => e.usages.length)).toEqual([1, 1]);
  });
});

describe("session hooks", () => {
  it("onTurnComplete sees the finished transcript and the last usage; endSession calls onSessionEnd", async () => {
    const seen: Array<{ roles: string[]; usage: unknown; sessionId: unknown }> = [];
    const ended: Array<[string, number]> = [];
    const engine = new (class extends RecordingEngine {
      override onTurnComplete(messages: readonly { role: string }[], usage?: unknown, meta?: { sessionId?: string }) {
        seen.push({ roles: messages.map((m) => m.role), usage, sessionId: meta?.sessionId });
      }
      override onSessionEnd(sessionId: string, messages: readonly unknown[]) {
        ended.push([sessionId, messages.length]);
      }
    })();
    const model = fakeModel().respond(answer("hi there", { input: 30, output: 3, cacheRead: 0, reasoning: 0 }));
    const middleware = contextEngineMiddleware({ engine });
    const agent = createAgent({ model, middleware: [middleware] });
    const out = await agent.invoke({ messages: [new HumanMessage("hello")] }, { configurable: { thread_id: "T" } });
    expect(seen).toEqual([
      { roles: ["user", "assistant"], usage: expect.objectContaining({ prompt_tokens: 30, completion_tokens: 3 }), sessionId: "T" },
    ]);
    await middleware.endSession("T", out.messages);
    expect(ended).toEqual([["T", 2]]);
  });
});
