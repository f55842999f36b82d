import { ChatModelError } from "@context-engine/core";
import type { AssistantMessage, ChatModelRequest, ChatModelResponse } from "@context-engine/core";
import OpenAI from "openai";
import type { RetryAwareChatModel } from "../runtime.js";
import { isRetryable, retryAfterMsOf } from "./errors.js";
import { mapProviderError } from "./map-error.js";
import { backoffMs, sleep } from "./retry.js";
import { ChatCompletionSchema } from "./response-schema.js";
import { canonicalUsage } from "./usage.js";

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
  /** Per-request timeout; default 10 minutes. */
  timeoutMs?: number;
  defaultHeaders?: Record<string, string>;
  /** A fetch implementation (tests, proxies). */
  fetch?: typeof fetch;
}

/** A ChatModel on an OpenAI-compatible chat-completions endpoint, with single-attempt access for the host. */
export interface OpenAIChatModel extends RetryAwareChatModel {
  readonly model: string;
  readonly baseURL: string;
  readonly maxRetries: number;
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
  const baseDelay = options.retryBaseDelayMs ?? 1000;
  const maxDelay = options.retryMaxDelayMs ?? 30_000;
  const client = new OpenAI({
    apiKey: options.apiKey,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    maxRetries: 0, // retries are ours: typed, observable and abortable
    timeout: options.timeoutMs ?? 600_000,
    ...(options.defaultHeaders ? { defaultHeaders: options.defaultHeaders } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const baseURL = client.baseURL;

  const completeOnce = async (request: ChatModelRequest): Promise<ChatModelResponse> => {
    const body: Record<string, unknown> = {
      model: request.model ?? options.model,
      messages: request.messages,
    };
    if (request.tools && request.tools.length > 0) body.tools = request.tools;
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
    let raw: unknown;
    try {
      raw = await client.chat.completions.create(
        body as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
        request.signal ? { signal: request.signal } : undefined,
      );
    } catch (error) {
      throw mapProviderError(error, baseURL);
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

  return { model: options.model, baseURL, maxRetries, complete, completeOnce };
}

/** Validate a chat-completions body and turn it into a ChatModelResponse. */
export function toResponse(raw: unknown, baseURL = ""): ChatModelResponse {
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
  const message: AssistantMessage = { role: "assistant", content: content as AssistantMessage["content"] };
  if (calls.length > 0) message.tool_calls = calls;
  if (m.refusal) (message as Record<string, unknown>).refusal = m.refusal;
  const response: ChatModelResponse = { message, finishReason: choice.finish_reason ?? null };
  const usage = canonicalUsage(body.usage);
  if (usage) response.usage = usage;
  if (body.model) response.model = body.model;
  return response;
}
