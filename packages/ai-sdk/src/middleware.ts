import type { ContextEngine, Message } from "@context-engine/core";
import { runEngineStep } from "./engine-step.js";
import type { AdapterEvent } from "./engine-step.js";
import { fromOpenAIMessages } from "./from-openai.js";
import { deepEqual } from "./json-safe.js";
import { toOpenAIMessages } from "./to-openai.js";
import type { SdkMessage } from "./types.js";
import { toEngineUsage } from "./usage.js";

export interface ContextMiddlewareOptions {
  /** `"v4"` for ai@7 (default), `"v3"` for ai@6. */
  specificationVersion?: "v3" | "v4";
  sessionId?: string;
  timeoutMs?: number;
  onEvent?: (event: AdapterEvent) => void;
}

interface CallParams {
  prompt: SdkMessage[];
  [key: string]: unknown;
}

/**
 * A language-model middleware (`wrapLanguageModel`) that lets the engine
 * manage every prompt sent through the wrapped model, for code that does not
 * use `prepareStep`. The middleware sees only prompts, so it remembers the
 * last compaction: a later prompt that starts with the messages it replaced
 * is sent with the compacted version in their place.
 */
export function contextEngineMiddleware(engine: ContextEngine, options: ContextMiddlewareOptions = {}) {
  const version = options.specificationVersion ?? "v4";
  const dialect = version === "v4" ? "prompt-v4" : "prompt-v3";
  const timeoutMs = options.timeoutMs ?? 30_000;
  /** The prompt messages the last compaction replaced, and what replaced them. */
  let replaced: SdkMessage[] = [];
  let compacted: Message[] = [];

  const feed = (usage: unknown) => {
    try {
      engine.updateFromResponse(toEngineUsage(usage));
    } catch (error) {
      options.onEvent?.({ type: "engine-error", where: "updateFromResponse", reason: String(error) });
    }
  };

  return {
    specificationVersion: version,
    async transformParams({ params }: { params: CallParams; type?: string; model?: unknown }): Promise<CallParams> {
      const prompt = params.prompt;
      const reuse = replaced.length > 0 && replaced.length <= prompt.length && replaced.every((m, i) => deepEqual(m, prompt[i]));
      let history: Message[] | null = null;
      const view = () =>
        (history ??= reuse ? [...structuredClone(compacted), ...toOpenAIMessages(prompt.slice(replaced.length))] : toOpenAIMessages(prompt));
      const decision = await runEngineStep(engine, view, { timeoutMs, sessionId: options.sessionId, onEvent: options.onEvent });
      if (!decision) return reuse ? { ...params, prompt: fromOpenAIMessages(view(), dialect) } : params;
      if (decision.compressed) {
        replaced = prompt;
        compacted = decision.history;
      }
      if (!reuse && !decision.compressed && decision.request === view()) return params;
      return { ...params, prompt: fromOpenAIMessages(decision.request, dialect) };
    },
    async wrapGenerate({ doGenerate }: { doGenerate: () => PromiseLike<{ usage?: unknown }>; [key: string]: unknown }) {
      const result = await doGenerate();
      feed(result.usage);
      return result;
    },
    async wrapStream({ doStream }: { doStream: () => PromiseLike<{ stream: ReadableStream<unknown> }>; [key: string]: unknown }) {
      const result = await doStream();
      const stream = result.stream.pipeThrough(
        new TransformStream<unknown, unknown>({
          transform(chunk, controller) {
            const c = chunk as { type?: string; usage?: unknown };
            if (c && c.type === "finish") feed(c.usage);
            controller.enqueue(chunk);
          },
        }),
      );
      return { ...result, stream };
    },
  };
}
