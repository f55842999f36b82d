import { ChatModelError, checkConversation } from "@context-engine/core";
import type { ContextEngine } from "@context-engine/core";
import type { Message, ToolCallOptions, ToolSchema } from "@context-engine/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentHost, createOpenAIChatModel, readEventStream, StreamAccumulator, toResponse } from "../src/index.js";
import type { HostEvent } from "../src/index.js";
import { RecordingEngine, SelectingEngine } from "./support/engines.js";
import type { Behaviour } from "./support/misbehaving-server.js";
import { answer, chunk, keepAliveForever, MisbehavingServer, streamThenEnd, streamThenReset, toolCallAtTokenLimit, trickle } from "./support/misbehaving-server.js";

/**
 * The fault matrix's provider half: a real loopback HTTP server that
 * misbehaves (a stream that just stops, a tool call cut off, keep-alive
 * comments for ever, a trickle of bytes), through the real host, streamed and
 * not. Every case must: settle as a failed turn with a typed provider error,
 * run no tool, keep no partial answer, and leave the next turn working.
 */

/** `request_timeout_seconds` of the timeout cases (short, so they end soon) and of the others (never reached). */
const SHORT_TIMEOUT_MS = 800;
const LONG_TIMEOUT_MS = 60_000;
const readFile = { type: "function" as const, function: { name: "read_file", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } } };

interface ProviderFault {
  name: string;
  behaviour: Behaviour;
  kind: string;
  /** Which request paths the fault applies to. */
  modes: Array<"stream" | "plain">;
}

const toolPieces = (name: string, pieces: string[]) =>
  chunk({ role: "assistant", tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name, arguments: "" } }] }) +
  pieces.map((p) => chunk({ tool_calls: [{ index: 0, function: { arguments: p } }] })).join("");

const FAULTS: ProviderFault[] = [
  { name: "text stream that ends without a finish reason or [DONE]", behaviour: streamThenEnd(chunk({ role: "assistant", content: "The answer is" })), kind: "network", modes: ["stream"] },
  // Cut where the arguments still parse as JSON: `{"query":"a"}` of a longer `{"query":"a", …}`.
  { name: "engine tool call cut off where its arguments still parse", behaviour: streamThenEnd(toolPieces("ctx_search", ['{"query":', '"a"}'])), kind: "network", modes: ["stream"] },
  { name: "agent tool call cut off where its arguments still parse", behaviour: streamThenEnd(toolPieces("read_file", ['{"path":"/etc', '"}'])), kind: "network", modes: ["stream"] },
  { name: "tool call stream reset by the peer", behaviour: streamThenReset(toolPieces("read_file", ['{"path":"x"}'])), kind: "network", modes: ["stream"] },
  { name: "tool call cut at the token limit", behaviour: toolCallAtTokenLimit("ctx_search", '{"query":"a"}'), kind: "truncated", modes: ["stream", "plain"] },
  { name: "SSE keep-alive comments for ever", behaviour: keepAliveForever(20), kind: "timeout", modes: ["stream"] },
  { name: "a body one byte at a time", behaviour: trickle(10), kind: "timeout", modes: ["stream", "plain"] },
];

const server = new MisbehavingServer();
beforeAll(async () => {
  await server.start();
});
afterAll(async () => {
  await server.stop();
});

function makeHost(engine: ContextEngine, options: { maxRetries?: number; timeoutMs?: number } = {}) {
  const events: HostEvent[] = [];
  let executed = 0;
  const host = new AgentHost({
    engine,
    chatModel: createOpenAIChatModel({ baseURL: server.baseURL, apiKey: "k", model: "test-model", timeoutMs: options.timeoutMs ?? LONG_TIMEOUT_MS, retryBaseDelayMs: 1 }),
    tools: [readFile],
    executeTool: () => {
      executed++;
      return "file contents";
    },
    config: { retryBaseDelayMs: 1, retryMaxDelayMs: 5, maxRetries: options.maxRetries ?? 0 },
    onEvent: (e) => events.push(e),
  });
  return { host, events, executed: () => executed };
}

describe("fault matrix: a misbehaving provider", () => {
  const cases = FAULTS.flatMap((f) => f.modes.map((mode) => [`${f.name} (${mode})`, f, mode] as const));

  it.each(cases)("%s", async (_label, fault, mode) => {
    const engine = new SelectingEngine();
    const { host, events, executed } = makeHost(engine, { timeoutMs: fault.kind === "timeout" ? SHORT_TIMEOUT_MS : LONG_TIMEOUT_MS });
    if (mode === "stream") host.on("provider.delta", () => {});
    const session = await host.openSession({ model: "test-model", contextLength: 32_000 });
    server.plan(fault.behaviour);

    const first = await session.send("first question");
    expect(first.status, first.error?.message).toBe("failed");
    expect(first.exitReason).toBe(`provider_error:${fault.kind}`);
    expect(first.error?.message).toBeTruthy();
    expect(server.requests[0]!.stream === true).toBe(mode === "stream");
    // No tool ran and nothing of the unfinished answer was kept.
    expect(executed()).toBe(0);
    expect(engine.calls.filter((c) => c.hook === "handleToolCall")).toHaveLength(0);
    expect(events.some((e) => e.type === "tool.called" || e.type === "engine_tool.called")).toBe(false);
    expect(first.newMessages.map((m) => m.role)).toEqual(["user"]);

    const second = await session.send("second question");
    expect(second.status).toBe("completed");
    expect(second.text).toBe("recovered");
    const last = server.requests.at(-1)!.messages as Message[];
    expect(checkConversation(last)).toEqual([]);
    expect(last.filter((m) => m.role === "assistant")).toHaveLength(0);
    await host.close();
  });

  it("retries an unfinished stream like a dropped connection, and completes when the retry finishes", async () => {
    const engine = new SelectingEngine();
    const { host, executed } = makeHost(engine, { maxRetries: 1 });
    host.on("provider.delta", () => {});
    const session = await host.openSession({ model: "test-model", contextLength: 32_000 });
    server.plan(streamThenEnd(toolPieces("read_file", ['{"path":"a"}'])), answer("whole answer"));
    const result = await session.send("question");
    expect(result.status).toBe("completed");
    expect(result.text).toBe("whole answer");
    expect(executed()).toBe(0);
    await host.close();
  });
});

/** An engine whose tool never settles and ignores the abort signal. */
class DeafToolEngine extends RecordingEngine {
  entered: () => void = () => {};
  override get name(): string {
    return "deaf-tool";
  }
  override getToolSchemas(): ToolSchema[] {
    return [{ name: "ctx_slow", description: "never answers", parameters: { type: "object", properties: {} } }];
  }
  override handleToolCall(_name: string, _args: unknown, _options?: ToolCallOptions): Promise<string> {
    this.entered();
    return new Promise<string>(() => {});
  }
}

describe("fault matrix: an engine tool that ignores the abort signal", () => {
  it("an aborted turn settles at once as interrupted, and the next turn runs", async () => {
    const engine = new DeafToolEngine();
    const { host, events } = makeHost(engine);
    const session = await host.openSession({ model: "test-model", contextLength: 32_000 });
    server.plan((res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          object: "chat.completion",
          model: "m",
          choices: [{ index: 0, message: { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "ctx_slow", arguments: "{}" } }, { id: "c2", type: "function", function: { name: "read_file", arguments: "{}" } }] }, finish_reason: "tool_calls" }],
        }),
      );
    });
    const controller = new AbortController();
    engine.entered = () => controller.abort();
    const first = await session.send("slow please", { signal: controller.signal });
    expect(first.status).toBe("interrupted");
    // Every tool call has its result (an interruption), so the conversation stays valid.
    expect(checkConversation(session.messages)).toEqual([]);
    expect(session.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
      expect.stringMatching(/ctx_slow.*cancelled while this tool ran/),
      expect.stringMatching(/interrupted/),
    ]);
    expect(events.find((e) => e.type === "engine_tool.called")).toMatchObject({ ok: false });

    const second = await session.send("and now?");
    expect(second.status).toBe("completed");
    expect(second.text).toBe("recovered");
    await host.close();
  });
});

describe("what counts as a finished stream", () => {
  const finishChunk = (reason: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: reason }] })}\n\n`;
  const body = (text: string) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(text));
        controller.close();
      },
    });
  const fold = async (text: string) => {
    const acc = new StreamAccumulator();
    await readEventStream(body(text), acc);
    return acc;
  };

  it("a finish reason or [DONE] finishes it; neither is an error that keeps nothing", async () => {
    expect(toResponse((await fold(chunk({ content: "a" }) + finishChunk("stop"))).result()).message.content).toBe("a");
    expect(toResponse((await fold(chunk({ content: "b" }) + "data: [DONE]\n\n")).result()).message.content).toBe("b");
    const cut = await fold(chunk({ content: "The answer is" }) + ": keep-alive\n\n");
    expect(cut.finished).toBe(false);
    expect(() => cut.result()).toThrow(/ended before the model finished \(no finish reason and no \[DONE\]\)/);
    expect(ChatModelError.is(catchError(() => cut.result())) && (catchError(() => cut.result()) as ChatModelError).kind).toBe("network");
  });

  it("the caller's abort during keep-alive comments is an interruption, not a timeout", async () => {
    const { host } = makeHost(new SelectingEngine());
    host.on("provider.delta", () => {});
    const session = await host.openSession({ model: "test-model", contextLength: 32_000 });
    server.plan(keepAliveForever(20));
    const controller = new AbortController();
    host.on("provider.request", () => setTimeout(() => controller.abort(), 50));
    const result = await session.send("question", { signal: controller.signal });
    expect(result.status).toBe("interrupted");
    await host.close();
  });
});

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return null;
}
