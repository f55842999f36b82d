import type { ContextEngine, Message } from "@context-engine/core";
import { overridesHook, toolSchemasTokens } from "@context-engine/core";
import { callInputBudget, outputReserveOf } from "./budget.js";
import { runEngineStep } from "./engine-step.js";
import type { AdapterEvent } from "./engine-step.js";
import { convertFromOpenAI } from "./from-openai.js";
import { attempt, guarded } from "./guard.js";
import { deepEqual } from "./json-safe.js";
import { toOpenAIMessages } from "./to-openai.js";
import { asSdk } from "./types.js";
import type { SdkMessage, SdkMessageLike } from "./types.js";
import { toEngineUsage } from "./usage.js";

export type MiddlewareVersion = "v3" | "v4";

export interface ContextMiddlewareOptions<V extends MiddlewareVersion = MiddlewareVersion> {
  /** `"v4"` for ai@7 (default), `"v3"` for ai@6. */
  specificationVersion?: V;
  sessionId?: string;
  timeoutMs?: number;
  onEvent?: (event: AdapterEvent) => void;
  /** An engine that decides a prompt when the main one fails in it (e.g. the compressor); it learns the same usage. */
  fallback?: ContextEngine;
  /** Output tokens to keep free for calls that set no `maxOutputTokens` (default 0: the call's own setting only). */
  outputReserveTokens?: number;
}

/**
 * The middleware's shape, generic over the SDK's own call options and results
 * so that it is assignable to `LanguageModelMiddleware` of ai@7 (v4) and ai@6
 * (v3) without copying either SDK's types.
 */
export interface ContextMiddleware<V extends MiddlewareVersion = "v4"> {
  readonly specificationVersion: V;
  transformParams<P extends { prompt: readonly SdkMessageLike[] }>(options: { params: P }): Promise<P>;
  wrapGenerate<R extends { usage?: unknown; content?: readonly unknown[] }>(options: {
    doGenerate: () => PromiseLike<R>;
    params: { prompt: readonly SdkMessageLike[] };
  }): Promise<R>;
  wrapStream<R extends { stream: ReadableStream<unknown> }>(options: {
    doStream: () => PromiseLike<R>;
    params: { prompt: readonly SdkMessageLike[] };
  }): Promise<R>;
}

/**
 * A language-model middleware (`wrapLanguageModel`) that lets the engine
 * manage every prompt sent through the wrapped model, for code that does not
 * use `prepareStep`. The middleware sees only prompts, so it remembers the
 * last compaction: a later prompt that starts with the messages it replaced
 * is sent with the compacted version in their place. A model answer without
 * tool calls ends a turn: engines that implement `onTurnComplete` get the
 * prompt plus that answer.
 */
export function contextEngineMiddleware<V extends MiddlewareVersion = "v4">(
  engine: ContextEngine,
  options: ContextMiddlewareOptions<V> = {},
): ContextMiddleware<V> {
  const version = (options.specificationVersion ?? "v4") as V;
  const dialect = version === "v4" ? "prompt-v4" : "prompt-v3";
  const timeoutMs = options.timeoutMs ?? 30_000;
  const emit = (where: string, reason: string) => options.onEvent?.({ type: "engine-error", where, reason });
  /** The prompt messages the last compaction replaced, and what replaced them. */
  let replaced: SdkMessage[] = [];
  let compacted: Message[] = [];

  const engines = options.fallback ? [engine, options.fallback] : [engine];
  const feed = (usage: unknown) => {
    for (const e of engines) {
      const fed = attempt(() => e.updateFromResponse(toEngineUsage(usage)));
      if (!fed.ok) emit("updateFromResponse", fed.reason);
    }
  };
  const turnComplete = async (prompt: readonly SdkMessageLike[], answer: SdkMessage, usage: unknown) => {
    if (!overridesHook(engine, "onTurnComplete")) return;
    const transcript = toOpenAIMessages([...prompt, answer]);
    const outcome = await guarded(timeoutMs, () =>
      engine.onTurnComplete(transcript, usage ? toEngineUsage(usage) : null, { sessionId: options.sessionId }),
    );
    if (!outcome.ok) emit("onTurnComplete", outcome.reason);
  };

  return {
    specificationVersion: version,
    async transformParams<P extends { prompt: readonly SdkMessageLike[] }>({ params }: { params: P }): Promise<P> {
      const prompt = asSdk(params.prompt);
      // What this call will enforce: the window less its output reserve and the tools it sends.
      const call = params as { maxOutputTokens?: unknown; tools?: unknown };
      const tools = Array.isArray(call.tools) ? toolSchemasTokens(call.tools) : 0;
      const budgetTokens = callInputBudget(engine, outputReserveOf(call, options.outputReserveTokens), tools);
      const reuse = replaced.length > 0 && replaced.length <= prompt.length && replaced.every((m, i) => deepEqual(m, prompt[i]));
      let history: Message[] | null = null;
      const view = () =>
        // No copy: `compacted` is the adapter's own accepted list, and engines only ever get copies of the view.
        (history ??= reuse ? [...compacted, ...toOpenAIMessages(prompt.slice(replaced.length))] : toOpenAIMessages(prompt));
      const decision = await runEngineStep(engine, view, { timeoutMs, sessionId: options.sessionId, onEvent: options.onEvent, fallback: options.fallback, budgetTokens });
      if (!decision) return reuse ? { ...params, prompt: convertFromOpenAI(view(), dialect) } : params;
      if (decision.compressed) {
        replaced = prompt;
        compacted = decision.history;
      }
      if (!reuse && !decision.compressed && decision.request === view()) return params;
      return { ...params, prompt: convertFromOpenAI(decision.request, dialect) };
    },
    async wrapGenerate<R extends { usage?: unknown; content?: readonly unknown[] }>({
      doGenerate,
      params,
    }: {
      doGenerate: () => PromiseLike<R>;
      params: { prompt: readonly SdkMessageLike[] };
    }): Promise<R> {
      const result = await doGenerate();
      feed(result.usage);
      const parts = (Array.isArray(result.content) ? result.content : []) as Array<{ type?: unknown; text?: unknown }>;
      if (!parts.some((p) => p?.type === "tool-call")) {
        const kept = parts.filter((p) => p?.type === "text" || p?.type === "reasoning").map((p) => ({ type: String(p.type), text: String(p.text ?? "") }));
        await turnComplete(params.prompt, { role: "assistant", content: kept }, result.usage);
      }
      return result;
    },
    async wrapStream<R extends { stream: ReadableStream<unknown> }>({
      doStream,
      params,
    }: {
      doStream: () => PromiseLike<R>;
      params: { prompt: readonly SdkMessageLike[] };
    }): Promise<R> {
      const result = await doStream();
      let text = "";
      let calledTools = false;
      let finish: { usage?: unknown } | null = null;
      const stream = (result.stream as ReadableStream<unknown>).pipeThrough(
        new TransformStream<unknown, unknown>({
          transform(chunk, controller) {
            const c = chunk as { type?: string; usage?: unknown; delta?: unknown };
            if (c?.type === "text-delta" && typeof c.delta === "string") text += c.delta;
            else if (c?.type === "tool-call") calledTools = true;
            else if (c?.type === "finish") {
              finish = c;
              feed(c.usage);
            }
            controller.enqueue(chunk);
          },
          // The turn ends when the stream does: an answer without tool calls completes it.
          async flush() {
            if (finish && !calledTools) await turnComplete(params.prompt, { role: "assistant", content: text }, (finish as { usage?: unknown }).usage);
          },
        }),
      );
      return { ...result, stream } as R;
    },
  };
}
