import { MAX_TOOL_ARGUMENTS_CHARS as MAX_TOOL_ARGUMENT_CHARS } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { RecordingEngine, SelectingEngine } from "./support/engines.js";
import { makeHost, useFakeServer } from "./support/setup.js";

const server = useFakeServer();

const readTool = { name: "read_file", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } };

describe("a tool result far larger than the window", () => {
  it("is shortened with a note, the turn completes, and the history is what was sent", async () => {
    server.script([{ toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "huge.log" } }] }, { content: "summarised the log" }]);
    const huge = `LOG-START\n${"2026-01-01 INFO request served in 12 ms\n".repeat(20_000)}LOG-END`;
    const engine = new RecordingEngine();
    engine.forceShouldCompress = false;
    const { host, ofType } = makeHost(server, { engine, tools: [readTool], executeTool: () => huge });
    const session = await host.openSession({ model: "test-model", contextLength: 8_000, systemPrompt: "sys" });
    const result = await session.send("read huge.log");

    expect(result.status).toBe("completed");
    expect(ofType("request.over_budget")).toHaveLength(0);
    const tool = session.messages.find((m) => m.role === "tool")!;
    const kept = String(tool.content);
    expect(kept.length).toBeLessThan(huge.length / 10);
    expect(kept).toMatch(/^LOG-START/);
    expect(kept).toMatch(/LOG-END$/);
    expect(kept).toMatch(/characters of this tool result were removed by the host/);
    // The request that followed carried exactly what the session keeps.
    const sent = server.requests[1]!.body.messages;
    expect(sent).toEqual(session.messages.slice(0, sent.length));
    const [event] = ofType("tool.result_shortened");
    expect(event).toMatchObject({ name: "read_file", callId: "r1", originalChars: huge.length });
    expect(event!.original).toBe(huge);
  });

  it("leaves results that fit untouched", async () => {
    server.script([{ toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "a.ts" } }] }, { content: "ok" }]);
    const { host, ofType } = makeHost(server, { engine: new RecordingEngine(), tools: [readTool], executeTool: () => "export const a = 1;" });
    const session = await host.openSession({ model: "test-model", contextLength: 8_000 });
    await session.send("read a.ts");
    expect(session.messages.find((m) => m.role === "tool")!.content).toBe("export const a = 1;");
    expect(ofType("tool.result_shortened")).toHaveLength(0);
  });
});

describe("tool-call arguments that cannot be parsed safely", () => {
  it("megabytes of arguments: a clear tool error, the tool never runs, nothing huge is kept, and the next turn is fine", async () => {
    const big = JSON.stringify({ path: "x".repeat(MAX_TOOL_ARGUMENT_CHARS + 10) });
    server.script([{ toolCalls: [{ id: "w1", name: "read_file", arguments: big }] }, { content: "sorry" }, { content: "next answer" }]);
    const ran: unknown[] = [];
    const { host } = makeHost(server, { engine: new RecordingEngine(), tools: [readTool], executeTool: (call) => ran.push(call) && "ran" });
    const session = await host.openSession({ model: "test-model", contextLength: 0 });
    const first = await session.send("write it");
    expect(first.status).toBe("completed");
    expect(ran).toHaveLength(0);
    const tool = session.messages.find((m) => m.role === "tool")!;
    expect(String(tool.content)).toMatch(/was not run: the arguments are [\d,]+ characters long; the host accepts at most 1,048,576/);
    expect(JSON.stringify(session.messages).length).toBeLessThan(10_000);
    const second = await session.send("and now?");
    expect(second.text).toBe("next answer");
    expect(JSON.stringify(server.requests[2]!.body.messages).length).toBeLessThan(10_000);
  });

  it("deeply nested arguments to an engine tool: refused by depth before anything parses them", async () => {
    const deep = `${'{"a":'.repeat(5_000)}1${"}".repeat(5_000)}`;
    server.script([{ toolCalls: [{ id: "d1", name: "ctx_search", arguments: deep }] }, { content: "ok" }]);
    const engine = new SelectingEngine();
    const { host } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 8_000 });
    const result = await session.send("search");
    expect(result.status).toBe("completed");
    expect(engine.hooks()).not.toContain("handleToolCall");
    const tool = session.messages.find((m) => m.role === "tool") as Message;
    expect(String(tool.content)).toMatch(/nested more than 64 levels deep/);
    const call = (session.messages.find((m) => m.role === "assistant") as { tool_calls: Array<{ function: { arguments: string } }> }).tool_calls[0]!;
    expect(JSON.parse(call.function.arguments)).toEqual({ note: expect.stringMatching(/arguments removed by the host/) });
  });
});
