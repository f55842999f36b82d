import { ChatModelError } from "@context-engine/core";
import { describe, expect, it, vi } from "vitest";
import { createOpenAIChatModel, defaultContextLength, resolveModelConfig } from "../src/index.js";
import { useFakeServer } from "./support/setup.js";

const server = useFakeServer();

const model = (overrides: Partial<Parameters<typeof createOpenAIChatModel>[0]> = {}) =>
  createOpenAIChatModel({ baseURL: server.baseURL, apiKey: server.apiKey, model: "m-1", retryBaseDelayMs: 1, retryMaxDelayMs: 20, ...overrides });

async function failure(promise: Promise<unknown>): Promise<ChatModelError> {
  try {
    await promise;
  } catch (error) {
    expect(ChatModelError.is(error)).toBe(true);
    return error as ChatModelError;
  }
  throw new Error("expected a failure");
}

const hi = { messages: [{ role: "user" as const, content: "hi" }] };

describe("createOpenAIChatModel", () => {
  it("sends messages, tools and the model, and maps tool calls and usage", async () => {
    server.script([
      {
        toolCalls: [{ id: "call_1", name: "lookup", arguments: { q: "x" } }],
        usage: {
          prompt_tokens: 100,
          completion_tokens: 20,
          total_tokens: 120,
          prompt_tokens_details: { cached_tokens: 60, cache_write_tokens: 10 },
          completion_tokens_details: { reasoning_tokens: 7 },
        },
      },
    ]);
    const tools = [{ type: "function", function: { name: "lookup", parameters: { type: "object", properties: {} } } }];
    const res = await model().complete({ ...hi, tools, model: "m-2", temperature: 0 });
    expect(server.requests[0]!.body).toMatchObject({ model: "m-2", messages: hi.messages, tools, temperature: 0 });
    expect(server.requests[0]!.body).not.toHaveProperty("max_tokens");
    expect(res.message).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_1", type: "function", function: { name: "lookup", arguments: '{"q":"x"}' } }],
    });
    expect(res.finishReason).toBe("tool_calls");
    expect(res.usage).toEqual({
      prompt_tokens: 100,
      completion_tokens: 20,
      total_tokens: 120,
      cache_read_tokens: 60,
      cache_write_tokens: 10,
      reasoning_tokens: 7,
      input_tokens: 30,
      output_tokens: 20,
    });
  });

  it("maps a wrong API key to auth, without retrying", async () => {
    const m = createOpenAIChatModel({ baseURL: server.baseURL, apiKey: "wrong", model: "m", retryBaseDelayMs: 1 });
    const err = await failure(m.complete(hi));
    expect(err.kind).toBe("auth");
    expect(err.status).toBe(401);
    expect(err.message).toMatch(/API key/);
    expect(server.requests).toHaveLength(0);
  });

  it("retries 429 and 5xx with backoff, then succeeds", async () => {
    server.script([
      { status: 429, error: { message: "slow down", type: "rate_limit_error" }, headers: { "retry-after-ms": "5" } },
      { status: 503, error: { message: "overloaded" } },
      { content: "finally" },
    ]);
    const res = await model({ maxRetries: 2 }).complete(hi);
    expect(res.message.content).toBe("finally");
    expect(server.requests).toHaveLength(3);
  });

  it("gives up after maxRetries with a typed error", async () => {
    server.script(() => ({ status: 500, error: { message: "boom" } }));
    const err = await failure(model({ maxRetries: 1 }).complete(hi));
    // A plain 5xx is a server error (retried), not a capacity answer.
    expect(err.kind).toBe("server_error");
    expect(err.status).toBe(500);
    expect(server.requests).toHaveLength(2);
  });

  it("completeOnce never retries", async () => {
    server.script(() => ({ status: 429, error: { message: "slow down" } }));
    const err = await failure(model({ maxRetries: 5 }).completeOnce(hi));
    expect(err.kind).toBe("rate_limit");
    expect(server.requests).toHaveLength(1);
  });

  it("does not retry an exhausted quota", async () => {
    server.script(() => ({ status: 429, error: { message: "You exceeded your current quota", code: "insufficient_quota", type: "insufficient_quota" } }));
    const err = await failure(model({ maxRetries: 3 }).complete(hi));
    expect(err.kind).toBe("quota");
    expect(server.requests).toHaveLength(1);
  });

  it("recognises a context-length rejection", async () => {
    server.script([
      {
        status: 400,
        error: { message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.", code: "context_length_exceeded", type: "invalid_request_error" },
      },
    ]);
    const err = await failure(model().complete(hi));
    expect(err.kind).toBe("context_length");
    expect(err.status).toBe(400);
  });

  it("maps other 4xx to bad_request", async () => {
    server.script([{ status: 422, error: { message: "bad tool schema" } }]);
    expect((await failure(model().complete(hi))).kind).toBe("bad_request");
  });

  it("maps a dropped connection to network", async () => {
    server.script(() => ({ destroy: true }));
    const err = await failure(model({ maxRetries: 1 }).complete(hi));
    expect(err.kind).toBe("network");
    expect(server.requests).toHaveLength(2);
  });

  it("maps an unreachable endpoint to network", async () => {
    const m = createOpenAIChatModel({ baseURL: "http://127.0.0.1:9/v1", apiKey: "k", model: "m", maxRetries: 0 });
    expect((await failure(m.complete(hi))).kind).toBe("network");
  });

  it("times out a slow answer and aborts on the caller's signal", async () => {
    server.script(() => ({ content: "late", delayMs: 5_000 }));
    const slow = model({ timeoutMs: 300, maxRetries: 0 });
    expect((await failure(slow.complete(hi))).kind).toBe("timeout");
    // Settle before the next test so no late request reaches its script.
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    const controller = new AbortController();
    server.script(() => {
      controller.abort();
      return { content: "late", delayMs: 5_000 };
    });
    const pending = model().complete({ ...hi, signal: controller.signal });
    expect((await failure(pending)).kind).toBe("aborted");
  });

  it("validates the response body", async () => {
    server.script([{ raw: { choices: "nope" } }, { raw: { choices: [] } }, { content: "" }, { raw: { choices: [{ message: { role: "assistant", content: null, refusal: "I can't" }, finish_reason: "stop" }] } }]);
    const m = model({ maxRetries: 0 });
    const bad = await failure(m.complete(hi));
    expect(bad.kind).toBe("unknown");
    expect(bad.message).toMatch(/choices/);
    expect((await failure(m.complete(hi))).kind).toBe("empty");
    expect((await failure(m.complete(hi))).kind).toBe("empty");
    expect((await failure(m.complete(hi))).kind).toBe("refusal");
  });

  it("rejects missing settings with a clear message", () => {
    expect(() => createOpenAIChatModel({ apiKey: "k", model: "" })).toThrow(/model/);
  });
});

describe("resolveModelConfig", () => {
  it("lets a set environment variable override config.yaml, and says where each value came from", () => {
    const env = { OPENAI_MODEL: "env-model", OPENAI_BASE_URL: "http://127.0.0.1:1/v1", OPENAI_API_KEY: "sk-env" };
    const file = { name: "gpt-4o-mini", base_url: "https://api.example.com/v1", api_key: "sk-file" };
    const r = resolveModelConfig(file, env);
    expect(r).toMatchObject({ model: "env-model", baseURL: "http://127.0.0.1:1/v1", apiKey: "sk-env" });
    expect(r.sources).toMatchObject({ model: "env OPENAI_MODEL", baseURL: "env OPENAI_BASE_URL", apiKey: "env OPENAI_API_KEY" });
    const fromFile = resolveModelConfig(file, { OPENAI_BASE_URL: "  " });
    expect(fromFile).toMatchObject({ model: "gpt-4o-mini", baseURL: "https://api.example.com/v1", apiKey: "sk-file", contextLength: 128_000 });
    expect(fromFile.sources.baseURL).toBe("config.yaml: model.base_url");
    expect(() => resolveModelConfig(file, { OPENAI_BASE_URL: "localhost:8000" })).toThrow(/OPENAI_BASE_URL: expected an http\(s\) URL/);
    const fromEnv = resolveModelConfig(undefined, env);
    expect(fromEnv).toMatchObject({ model: "env-model", baseURL: "http://127.0.0.1:1/v1", apiKey: "sk-env" });
    expect(fromEnv.sources.model).toBe("env OPENAI_MODEL");
  });

  it("names the field that is wrong", () => {
    expect(() => resolveModelConfig({ name: "m", context_length: -5 }, {})).toThrow(/model\.context_length/);
    expect(() => resolveModelConfig({ base_url: "not a url", name: "m" }, {})).toThrow(/model\.base_url/);
    expect(() => resolveModelConfig({}, {})).toThrow(/OPENAI_MODEL/);
  });

  it("knows common context windows", () => {
    expect(defaultContextLength("gpt-4o-mini-2024-07-18")).toBe(128_000);
    expect(defaultContextLength("anthropic/claude-3.5-sonnet")).toBe(200_000);
    expect(defaultContextLength("some-new-model")).toBe(128_000);
  });
});

describe("5xx classification", () => {
  const kindFor = async (status: number, message: string) => {
    server.script(() => ({ status, error: { message } }));
    const m = createOpenAIChatModel({ baseURL: server.baseURL, apiKey: server.apiKey, model: "m", maxRetries: 0 });
    try {
      await m.completeOnce({ messages: [{ role: "user", content: "hi" }] });
    } catch (error) {
      return (error as ChatModelError).kind;
    }
    return "none";
  };

  it("only an explicit capacity answer is overloaded; any other 5xx is a server error", async () => {
    expect(await kindFor(500, "internal error")).toBe("server_error");
    expect(await kindFor(502, "bad gateway")).toBe("server_error");
    expect(await kindFor(503, "service unavailable")).toBe("server_error");
    expect(await kindFor(529, "busy")).toBe("overloaded");
    expect(await kindFor(503, "The engine is currently overloaded, please try again later")).toBe("overloaded");
    expect(await kindFor(429, "slow down")).toBe("rate_limit");
  });
});
