import type { Message, ToolCallOptions } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import type { ToolInvocation } from "../src/index.js";
import { SelectingEngine } from "./support/engines.js";
import { makeHost, useFakeServer } from "./support/setup.js";

const server = useFakeServer();

const readFile = { type: "function" as const, function: { name: "read_file", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } } };

function toolResults(messages: readonly Message[]) {
  return messages.filter((m) => m.role === "tool").map((m) => m.content as string);
}

describe("engine tools", () => {
  it("are injected after the agent's tools and dispatched to handleToolCall with a copy of the messages", async () => {
    server.script([{ toolCalls: [{ id: "c1", name: "ctx_search", arguments: { query: "auth bug" } }] }, { content: "here you go" }]);
    const engine = new SelectingEngine();
    let seen: ToolCallOptions | undefined;
    engine.toolImpl = (_name, args, options) => {
      seen = options;
      return JSON.stringify({ results: [`match for ${(args as { query: string }).query}`] });
    };
    const { host, ofType } = makeHost(server, { engine, tools: [readFile], executeTool: () => "unused" });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    const result = await session.send("find the auth bug");
    expect(result.status).toBe("completed");
    const sentTools = server.requests[0]!.body.tools!.map((t) => (t as { function: { name: string } }).function.name);
    expect(sentTools).toEqual(["read_file", "ctx_search"]);
    expect(server.requests[0]!.body.tools![1]).toEqual({
      type: "function",
      function: { name: "ctx_search", description: "Search the context store", parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] } },
    });
    expect(toolResults(session.messages)).toEqual(['{"results":["match for auth bug"]}']);
    expect(seen!.sessionId).toBe(session.id);
    // A copy of the conversation so far (up to the assistant's call), never the live list.
    expect(seen!.messages).not.toBe(session.messages);
    const given = seen!.messages ?? [];
    expect(given).toEqual(session.messages.slice(0, given.length));
    expect(given.at(-1)).toMatchObject({ role: "assistant" });
    expect(ofType("engine_tool.called")[0]).toMatchObject({ name: "ctx_search", callId: "c1", args: { query: "auth bug" }, ok: true, error: null });
    expect(session.engineTools).toEqual(["ctx_search"]);
  });

  it("turns a throw, a non-string return and bad JSON arguments into JSON error strings", async () => {
    server.script([
      {
        toolCalls: [
          { id: "a", name: "ctx_search", arguments: { query: "throw" } },
          { id: "b", name: "ctx_search", arguments: { query: "object" } },
          { id: "c", name: "ctx_search", arguments: "{not json" },
        ],
      },
      { content: "sorry" },
    ]);
    const engine = new SelectingEngine();
    engine.toolImpl = (_n, args) => {
      if ((args as { query: string }).query === "throw") throw new Error("index offline");
      return { not: "a string" };
    };
    const { host, ofType } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    const result = await session.send("go");
    expect(result.status).toBe("completed");
    const results = toolResults(session.messages).map((t) => JSON.parse(t));
    expect(results[0]).toEqual({ error: "Context engine tool 'ctx_search' failed: index offline" });
    expect(results[1].error).toMatch(/returned object instead of a JSON string/);
    expect(results[2].error).toMatch(/not valid JSON/);
    expect(ofType("engine_tool.called").map((e) => e.ok)).toEqual([false, false, false]);
    // The model saw the errors in the next request.
    expect(server.requests[1]!.body.messages.filter((m) => m.role === "tool")).toHaveLength(3);
  });

  it("skips invalid engine schemas and names the agent already uses", async () => {
    server.script([{ content: "ok" }]);
    const engine = new SelectingEngine();
    engine.getToolSchemas = () => [
      { name: "read_file", parameters: { type: "object" } },
      { name: "bad name!", parameters: { type: "object" } },
      { description: "nameless", parameters: { type: "object" } } as never,
      { name: "ctx_expand", parameters: { type: "object" } },
      { name: "ctx_expand", parameters: { type: "object" } },
    ];
    const { host } = makeHost(server, { engine, tools: [readFile] });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    expect(session.tools.map((t) => t.function.name)).toEqual(["read_file", "ctx_expand"]);
    expect(session.engineTools).toEqual(["ctx_expand"]);
  });

  it("a throwing getToolSchemas leaves the agent's tools alone", async () => {
    const engine = new SelectingEngine();
    engine.getToolSchemas = () => {
      throw new Error("nope");
    };
    const { host } = makeHost(server, { engine, tools: [readFile] });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    expect(session.tools.map((t) => t.function.name)).toEqual(["read_file"]);
  });
});

describe("engine tools editing the conversation they are given", () => {
  it("never change the persisted conversation or the next request", async () => {
    server.script([{ content: "one" }, { toolCalls: [{ id: "t1", name: "ctx_search", arguments: { query: "x" } }] }, { content: "done" }]);
    const engine = new SelectingEngine();
    engine.toolImpl = (_n, _a, options) => {
      const list = options!.messages as Message[];
      // In place, far before the tail: a replaced message, an edited part, a removed message.
      list[0] = { role: "user", content: "edited \uD800" };
      (list[2]!.content as Array<{ text: string }>)[0]!.text = "part \uDC00";
      list.pop();
      return "{}";
    };
    const { host } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    await session.send("first");
    const result = await session.send({ role: "user", content: [{ type: "text", text: "second" }] });
    expect(result.status).toBe("completed");
    const last = server.requests[2]!.body.messages;
    expect(last[0]).toEqual({ role: "user", content: "first" });
    expect(last[2]).toEqual({ role: "user", content: [{ type: "text", text: "second" }] });
    expect(session.messages[0]).toEqual({ role: "user", content: "first" });
    expect(session.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "tool", "assistant"]);
  });
});

describe("agent tools", () => {
  it("go to executeTool with parsed arguments; results and errors become tool messages", async () => {
    server.script([
      {
        toolCalls: [
          { id: "r1", name: "read_file", arguments: { path: "a.txt" } },
          { id: "r2", name: "read_file", arguments: { path: "missing.txt" } },
          { id: "r3", name: "no_such_tool", arguments: {} },
        ],
      },
      { content: "read them" },
    ]);
    const calls: ToolInvocation[] = [];
    const engine = new SelectingEngine();
    const { host, ofType } = makeHost(server, {
      engine,
      tools: [{ name: "read_file", description: "Read a file", parameters: { type: "object" } }],
      executeTool: async (call) => {
        calls.push(call);
        if (call.name === "no_such_tool") return `{"error":"Unknown tool: ${call.name}"}`;
        if ((call.args as { path: string }).path === "missing.txt") throw new Error("ENOENT");
        return { text: "contents of a.txt" };
      },
    });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    await session.send("read files");
    expect(calls.map((c) => [c.id, c.name, c.args])).toEqual([
      ["r1", "read_file", { path: "a.txt" }],
      ["r2", "read_file", { path: "missing.txt" }],
      ["r3", "no_such_tool", {}],
    ]);
    expect(toolResults(session.messages)).toEqual([
      '{"text":"contents of a.txt"}',
      '{"error":"Tool \'read_file\' failed: ENOENT"}',
      '{"error":"Unknown tool: no_such_tool"}',
    ]);
    expect(ofType("tool.called").map((e) => e.ok)).toEqual([true, false, true]);
    expect(engine.hooks()).not.toContain("handleToolCall");
  });

  it("answers every call with an error when no executor is configured", async () => {
    server.script([{ toolCalls: [{ id: "x", name: "read_file", arguments: {} }] }, { content: "ok" }]);
    const { host } = makeHost(server, { engine: new SelectingEngine(), tools: [readFile] });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    await session.send("go");
    expect(JSON.parse(toolResults(session.messages)[0]!).error).toMatch(/no tool executor/);
  });

  it("rejects a malformed agent tool list up front", () => {
    expect(() => makeHost(server, { engine: new SelectingEngine(), tools: [{ name: "x" } as never] })).toThrow(/tools\[0\]/);
  });

  it("stops at the iteration limit", async () => {
    server.script(() => ({ toolCalls: [{ name: "read_file", arguments: {} }] }));
    const { host } = makeHost(server, { engine: new SelectingEngine(), tools: [readFile], executeTool: () => "again", config: { maxIterations: 3 } });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    const result = await session.send("loop forever");
    expect(result).toMatchObject({ status: "failed", exitReason: "iteration_limit", apiCalls: 3 });
    expect(result.error?.message).toMatch(/limit of 3/);
  });
});
