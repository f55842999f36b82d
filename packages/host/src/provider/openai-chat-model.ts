import { ChatModelError } from "@context-engine/core";
import type { AssistantMessage, ChatModelRequest, ChatModelResponse } from "@context-engine/core";
import OpenAI from "openai";
import type { RetryAwareChatModel, StreamingChatModel } from "../runtime.js";
import { isRetryable, retryAfterMsOf } from "./errors.js";
import { mapProviderError } from "./map-error.js";
import { startDeadline } from "./deadline.js";
import { backoffMs, sleep } from "./retry.js";
import { ChatCompletionSchema } from "./response-schema.js";
import { canonicalUsage } from "./usage.js";
import { readEventStream, StreamAccumulator, type StreamDelta } from "./stream.js";

export interface OpenAIChatModelOptions {
  /** e.g. `https://api.openai.com/v1`; the client default when absent. */
  baseURL?: string;
  apiKey: string;
  /** The default model; a request's `model` overrides it. */
  model: string;
  /** Retries on 429 (not quota), 5xx, network errors and timeouts; default 2. */
  maxRetries?: number;
  /** First backoff delay; doubles per retry with ±25% jitter. Default 1000 ms. */
  retryBaseDelayMs?: number;
  /** Cap for one backoff (also for a provider's Retry-After). Default 30 s. */
  retryMaxDelayMs?: number;
  /**
   * Bound on one whole response: headers, body and every streamed piece (SSE keep-alive comments or a
   * trickle of bytes do not extend it); also the longest pause between two streamed pieces. Default 10 minutes.
   */
  timeoutMs?: number;
  defaultHeaders?: Record<string, string>;
  /** A fetch implementation (tests, proxies). */
  fetch?: typeof fetch;
}

/** A ChatModel on an OpenAI-compatible chat-completions endpoint, with single-attempt access for the host. */
export interface OpenAIChatModel extends RetryAwareChatModel, StreamingChatModel {
  readonly model: string;
  readonly baseURL: string;
  readonly maxRetries: number;
  /** True once the server refused a streamed request; later calls of `completeStream` do not stream. */
  readonly streamingRefused: boolean;
}

/**
 * A ChatModel over the official `openai` client. Errors become
 * ChatModelErrors with a `kind`; responses are validated; usage is mapped to
 * the canonical buckets. `complete` retries with exponential backoff (and the
 * provider's Retry-After) on rate limits, 5xx, network errors and timeouts;
 * `completeOnce` makes a single attempt (the host retries by itself).
 */
export function createOpenAIChatModel(options: OpenAIChatModelOptions): OpenAIChatModel {
  if (!options || typeof options.model !== "string" || !options.model.trim()) {
    throw new TypeError("createOpenAIChatModel: `model` is required (config model.name or OPENAI_MODEL)");
  }
  if (typeof options.apiKey !== "string") {
    throw new TypeError("createOpenAIChatModel: `apiKey` is required (config model.api_key or OPENAI_API_KEY)");
  }
  const maxRetries = options.maxRetries ?? 2;
  const timeoutMs = options.timeoutMs ?? 600_000;
  const baseDelay = options.retryBaseDelayMs ?? 1000;
  const maxDelay = options.retryMaxDelayMs ?? 30_000;
  const client = new OpenAI({
    apiKey: options.apiKey,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    maxRetries: 0, // retries are ours: typed, observable and abortable
    timeout: timeoutMs,
    ...(options.defaultHeaders ? { defaultHeaders: options.defaultHeaders } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const baseURL = client.baseURL;

  const bodyOf = (request: ChatModelRequest): Record<string, unknown> => {
    // Tools before messages: the order providers put them in the prompt, so the body's bytes up to the messages are
    // the cacheable prefix the ledger measures (`requestBody`).
    const body: Record<string, unknown> = { model: request.model ?? options.model };
    if (request.tools && request.tools.length > 0) body.tools = request.tools;
    body.messages = request.messages;
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
    return body;
  };

  const completeOnce = async (request: ChatModelRequest): Promise<ChatModelResponse> => {
    const body = bodyOf(request);
    // The client's own timeout stops at the headers; the deadline also bounds reading the body.
    const deadline = startDeadline(timeoutMs, request.signal);
    let raw: unknown;
    try {
      raw = await client.chat.completions.create(body as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming, { signal: deadline.signal });
    } catch (error) {
      throw deadline.expired ? deadline.error(baseURL) : mapProviderError(error, baseURL);
    } finally {
      deadline.clear();
    }
    return toResponse(raw, baseURL);
  };

  const complete = async (request: ChatModelRequest): Promise<ChatModelResponse> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await completeOnce(request);
      } catch (error) {
        const e = error as ChatModelError;
        if (!ChatModelError.is(e) || !isRetryable(e) || attempt >= maxRetries) throw e;
        await sleep(backoffMs(attempt, { baseDelayMs: baseDelay, maxDelayMs: maxDelay }, retryAfterMsOf(e)), request.signal);
        if (request.signal?.aborted) throw new ChatModelError("aborted", "the request was cancelled");
      }
    }
  };

  let streamingRefused = false;
  // One attempt with `stream: true` (usage in the last chunk); a server that
  // refuses streaming gets the plain request, now and for later calls.
  const completeStream = async (request: ChatModelRequest, onDelta: (delta: StreamDelta) => void): Promise<ChatModelResponse> => {
    if (streamingRefused) return completeOnce(request);
    const body = { ...bodyOf(request), stream: true, stream_options: { include_usage: true } };
    const deadline = startDeadline(timeoutMs, request.signal);
    let response: Response;
    try {
      response = await client.chat.completions
        .create(body as unknown as OpenAI.Chat.ChatCompletionCreateParamsStreaming, { signal: deadline.signal })
        .asResponse();
    } catch (error) {
      deadline.clear();
      if (deadline.expired) throw deadline.error(baseURL);
      const mapped = mapProviderError(error, baseURL);
      if (refusesStreaming(mapped)) {
        streamingRefused = true;
        return completeOnce(request);
      }
      throw mapped;
    }
    try {
      const type = response.headers.get("content-type") ?? "";
      // A server that ignores `stream` answers with one plain body.
      if (!type.includes("text/event-stream") || !response.body) return toResponse(await plainBody(response), baseURL);
      const accumulator = new StreamAccumulator(onDelta, baseURL);
      await readEventStream(response.body, accumulator, deadline.signal, timeoutMs);
      return toResponse(accumulator.result(), baseURL);
    } catch (error) {
      throw deadline.expired ? deadline.error(baseURL) : mapProviderError(error, baseURL);
    } finally {
      deadline.clear();
    }
  };

  return {
    model: options.model,
    baseURL,
    maxRetries,
    complete,
    completeOnce,
    completeStream,
    get streamingRefused() {
      return streamingRefused;
    },
  };
}

/** A 400/404/422 that names streaming: the server does not do it. */
function refusesStreaming(error: ChatModelError): boolean {
  const status = error.status ?? 0;
  return (error.kind === "bad_request" || status === 404 || status === 422) && /stream/i.test(error.message);
}

/** A non-streamed body: JSON when it parses, else the text (reported as "not JSON" by toResponse). */
async function plainBody(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Validate a chat-completions body and turn it into a ChatModelResponse. */
export function toResponse(raw: unknown, baseURL = ""): ChatModelResponse {
  if (typeof raw === "string") throw notJson(raw, baseURL);
  const parsed = ChatCompletionSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ChatModelError(
      "unknown",
      `the provider sent an unexpected response${baseURL ? ` (${baseURL})` : ""}: ` +
        (issue ? `${issue.path.join(".") || "body"}: ${issue.message}` : "invalid body"),
    );
  }
  const body = parsed.data;
  const choice = body.choices[0];
  if (!choice) throw new ChatModelError("empty", "the provider returned no choices");
  const m = choice.message;
  const calls = (m.tool_calls ?? []).map((c) => ({
    id: c.id,
    type: "function" as const,
    function: { name: c.function.name, arguments: c.function.arguments ?? "" },
  }));
  const content = m.content ?? null;
  const emptyContent = content === null || (typeof content === "string" ? content.length === 0 : content.length === 0);
  if (emptyContent && calls.length === 0) {
    if (m.refusal) throw new ChatModelError("refusal", `the model refused: ${m.refusal}`);
    if (choice.finish_reason === "length") throw new ChatModelError("truncated", "the answer was cut off at the token limit before any text");
    if (choice.finish_reason === "content_filter") throw new ChatModelError("refusal", "the answer was blocked by the provider's content filter");
    throw new ChatModelError("empty", "the provider returned an empty answer");
  }
  if (calls.length > 0 && choice.finish_reason === "length") {
    // The token limit cut the answer inside its tool calls: their arguments may be cut where they still parse.
    throw new ChatModelError("truncated", `the answer was cut off at the token limit while writing ${calls.length} tool call(s); no tool was run`);
  }
  const message: AssistantMessage = { role: "assistant", content: content as AssistantMessage["content"] };
  if (calls.length > 0) message.tool_calls = calls;
  if (m.refusal) (message as Record<string, unknown>).refusal = m.refusal;
  const response: ChatModelResponse = { message, finishReason: choice.finish_reason ?? null };
  const usage = canonicalUsage(body.usage);
  if (usage) response.usage = usage;
  if (body.model) response.model = body.model;
  return response;
}

/** A reply that is text, not JSON: usually a wrong base URL (a web page, a proxy's error page). */
function notJson(text: string, baseURL: string): ChatModelError {
  const start = text.replace(/\s+/g, " ").trim().slice(0, 80);
  return new ChatModelError(
    "unknown",
    `the server${baseURL ? ` at ${baseURL}` : ""} answered with text that is not JSON${start ? ` (it begins “${start}”)` : " (an empty body)"}; ` +
      "is the base URL an OpenAI-compatible API (it usually ends in /v1)?",
  );
}
