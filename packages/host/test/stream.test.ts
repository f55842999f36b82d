import { ChatModelError } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { StreamAccumulator, createOpenAIChatModel, readEventStream, toResponse } from "../src/index.js";
import type { StreamDelta } from "../src/index.js";
import { RecordingEngine } from "./support/engines.js";
import { makeHost, useFakeServer } from "./support/setup.js";

const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;

/** A body that delivers `text` in pieces cut at the given offsets (chunk boundaries anywhere). */
function bodyOf(text: string, cuts: number[]): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  const points = [0, ...cuts.filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b), bytes.length];
  return new ReadableStream({
    start(controller) {
      for (let i = 0; i + 1 < points.length; i++) controller.enqueue(bytes.slice(points[i], points[i + 1]));
      controller.close();
    },
  });
}

const SAMPLE =
  chunk({ role: "assistant", content: "" }) +
  chunk({ content: "Héllo, " }) +
  ": keep-alive comment\n\n" +
  chunk({ content: "wörld" }) +
  chunk({ tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "lcm_grep", arguments: "" } }] }) +
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"query":' } }] }) +
  chunk({ tool_calls: [{ index: 0, function: { arguments: '"alpha"}' } }] }) +
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] })}\n\n` +
  `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 50, completion_tokens: 7, total_tokens: 57 } })}\n\n` +
  "data: [DONE]\n\n";

async function fold(text: string, cuts: number[]) {
  const deltas: StreamDelta[] = [];
  const acc = new StreamAccumulator((d) => deltas.push(d));
  await readEventStream(bodyOf(text, cuts), acc);
  return { acc, deltas, response: toResponse(acc.result()) };
}

describe("SSE parsing of streamed chat completions", () => {
  it("adds the chunks up to the same answer wherever the network cuts them (also inside a multi-byte character)", async () => {
    const whole = await fold(SAMPLE, []);
    expect(whole.response.message.content).toBe("Héllo, wörld");
    expect(whole.response.message.tool_calls).toEqual([{ id: "call_a", type: "function", function: { name: "lcm_grep", arguments: '{"query":"alpha"}' } }]);
    expect(whole.response.finishReason).toBe("tool_calls");
    expect(whole.response.usage).toMatchObject({ prompt_tokens: 50, completion_tokens: 7, total_tokens: 57 });
    const bytes = new TextEncoder().encode(SAMPLE).length;
    for (const step of [1, 3, 7, 64]) {
      const cuts = Array.from({ length: Math.ceil(bytes / step) }, (_, i) => i * step);
      const cut = await fold(SAMPLE, cuts);
      expect(cut.response).toEqual(whole.response);
      expect(cut.deltas.filter((d) => d.kind === "text").map((d) => (d as { text: string }).text).join("")).toBe("Héllo, wörld");
    }
    const progress = whole.deltas.filter((d) => d.kind === "tool_call");
    expect(progress.at(-1)).toEqual({ kind: "tool_call", index: 0, id: "call_a", name: "lcm_grep", argumentsChars: 17 });
  });

  it("reads CRLF framing and a last event without its blank line", async () => {
    const crlf = `${chunk({ content: "a" }).replace(/\n/g, "\r\n")}data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "b" }, finish_reason: "stop" }] })}`;
    const { response } = await fold(crlf, [5]);
    expect(response.message.content).toBe("ab");
    expect(response.finishReason).toBe("stop");
  });

  it("skips malformed data lines and counts them; only malformed lines is an error that says so", async () => {
    const mixed = `data: {not json\n\n${chunk({ content: "kept" })}data: [1,2]\n\n${chunk({ content: "!" })}data: [DONE]\n\n`;
    const { acc, response } = await fold(mixed, [9, 30]);
    expect(response.message.content).toBe("kept!");
    expect(acc.malformed).toBe(2);
    const broken = new StreamAccumulator();
    await readEventStream(bodyOf("data: <html>\n\ndata: oops\n\n", []), broken);
    expect(() => broken.result()).toThrow(/could not be read.*2 line\(s\) were not valid JSON chunks/);
  });

  it("an error chunk mid-stream is a server_error", async () => {
    const acc = new StreamAccumulator();
    const text = `${chunk({ content: "par" })}data: ${JSON.stringify({ error: { message: "upstream died" } })}\n\n`;
    const failure = await readEventStream(bodyOf(text, []), acc).catch((e: unknown) => e);
    expect(ChatModelError.is(failure) && failure.kind).toBe("server_error");
    expect((failure as Error).message).toContain("upstream died");
  });
});

describe("streaming through the host (real loopback server)", () => {
  const server = useFakeServer();

  it("streams text deltas as provider.delta events when subscribed; usage comes from the last chunk", async () => {
    server.script([{ content: "streamed answer here", usage: { prompt_tokens: 42, completion_tokens: 4, total_tokens: 46 } }]);
    const { host } = makeHost(server, { engine: new RecordingEngine() });
    const deltas: string[] = [];
    host.on("provider.delta", (e) => {
      if (e.delta.kind === "text") deltas.push(e.delta.text);
    });
    const session = await host.openSession({ model: "test-model", contextLength: 32_000 });
    const result = await session.send("hi");
    expect(result.status).toBe("completed");
    expect(result.text).toBe("streamed answer here");
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.join("")).toBe("streamed answer here");
    expect(result.usage).toMatchObject({ prompt_tokens: 42, completion_tokens: 4 });
    expect(server.requests[0]!.body.stream).toBe(true);
    expect(server.requests[0]!.body.stream_options).toEqual({ include_usage: true });
    await host.close();
  });

  it("streams tool calls (progress events) and runs them", async () => {
    server.script([{ toolCalls: [{ name: "missing_tool", arguments: { path: "a/long/path.txt" } }] }, { content: "done" }]);
    const { host } = makeHost(server, { engine: new RecordingEngine() });
    const names = new Set<string>();
    host.on("provider.delta", (e) => {
      if (e.delta.kind === "tool_call" && e.delta.name) names.add(e.delta.name);
    });
    const session = await host.openSession({ model: "test-model", contextLength: 32_000 });
    const result = await session.send("go");
    expect(result.text).toBe("done");
    expect([...names]).toEqual(["missing_tool"]);
    const call = result.newMessages[1] as { tool_calls: Array<{ function: { arguments: string } }> };
    expect(JSON.parse(call.tool_calls[0]!.function.arguments)).toEqual({ path: "a/long/path.txt" });
    await host.close();
  });

  it("falls back to a plain request when the server refuses streaming, and when it ignores it", async () => {
    const model = createOpenAIChatModel({ baseURL: server.baseURL, apiKey: server.apiKey, model: "test-model" });
    server.streaming = "refuse";
    server.script([{ content: "plain one" }, { content: "plain two" }]);
    const first = await model.completeStream({ messages: [{ role: "user", content: "x" }] }, () => {});
    expect(first.message.content).toBe("plain one");
    expect(model.streamingRefused).toBe(true);
    expect(server.requests.map((r) => r.body.stream ?? false)).toEqual([true, false]);
    server.streaming = "ignore";
    const model2 = createOpenAIChatModel({ baseURL: server.baseURL, apiKey: server.apiKey, model: "test-model" });
    const second = await model2.completeStream({ messages: [{ role: "user", content: "x" }] }, () => {});
    expect(second.message.content).toBe("plain two");
    server.streaming = "sse";
  });

  it("a reply that is not JSON says so plainly, without schema jargon", async () => {
    server.script([{ raw: "<html><body>Welcome to nginx!</body></html>" }]);
    const model = createOpenAIChatModel({ baseURL: server.baseURL, apiKey: server.apiKey, model: "test-model" });
    const failure = await model.completeOnce({ messages: [{ role: "user", content: "x" }] }).catch((e: unknown) => e as Error);
    expect(failure.message).toMatch(/answered with text that is not JSON \(it begins “<html><body>Welcome to nginx!/);
    expect(failure.message).not.toMatch(/expected object/);
  });
});

describe("engine tool results shaped {error: …}", () => {
  const server = useFakeServer();
  it("are reported as failed calls with the engine's message, the result still goes to the model", async () => {
    const { SelectingEngine } = await import("./support/engines.js");
    server.script([{ toolCalls: [{ id: "c1", name: "ctx_search", arguments: { query: "q" } }] }, { content: "sorry" }]);
    const engine = new SelectingEngine();
    engine.toolImpl = () => JSON.stringify({ error: "no summary with id sum_42" });
    const { host, ofType } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 8000 });
    await session.send("expand it");
    expect(ofType("engine_tool.called")[0]).toMatchObject({ name: "ctx_search", ok: false, error: "no summary with id sum_42" });
    expect(session.messages.find((m) => m.role === "tool")!.content).toBe('{"error":"no summary with id sum_42"}');
    engine.toolImpl = () => JSON.stringify({ error: { message: "bad id", code: 4 } });
    server.script([{ toolCalls: [{ id: "c2", name: "ctx_search", arguments: { query: "q" } }] }, { content: "ok" }]);
    await session.send("again");
    expect(ofType("engine_tool.called")[1]).toMatchObject({ ok: false, error: "bad id" });
    await host.close();
  });
});
