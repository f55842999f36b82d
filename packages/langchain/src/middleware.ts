import type { ContextEngine, EngineFactory, EngineInitContext } from "@context-engine/core";
import { isContextEngine, overridesHook } from "@context-engine/core";
import { AIMessage, RemoveMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { Command, REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { bounded, guarded } from "./bounded.js";
import { toOpenAIMessages } from "./convert/to-openai.js";
import type { AdapterEvent } from "./events.js";
import { EngineSessions, type EngineSource } from "./sessions.js";
import { compactionHint, compactionStep, selectionStep } from "./steps.js";
import { requestInputBudget, type BudgetRequest } from "./budget.js";
import { engineTools } from "./tools.js";
import { usageFromResponse } from "./usage.js";

export interface ContextEngineMiddlewareOptions {
  /** An engine (serves every thread) or an EngineFactory (one engine per thread). */
  engine: EngineSource;
  /** Passed to the factory, and the fallback model figures for `updateModel`. */
  engineContext?: EngineInitContext;
  /** The model's window in tokens; otherwise read from the model's profile when it has one. */
  contextLength?: number;
  /** Session id for runs without `configurable.thread_id`. Default `"default"`. */
  defaultSessionId?: string;
  /** Bound for `compress` (default 120 s), `selectContext`/preflight (10 s) and other hooks (10 s). 0 disables. */
  timeouts?: { compressMs?: number; selectMs?: number; hookMs?: number };
  /** Every absorbed failure and every decision, for logs and tests. */
  onEvent?: (event: AdapterEvent) => void;
  /** Middleware name (must be unique within an agent). */
  name?: string;
  /**
   * An engine (or a factory, one per thread) that decides the compaction when
   * the main engine fails before a model call (throws, hangs, returns
   * something unusable): e.g. `new ContextCompressor(...)` in front of LCM, so
   * a store that cannot open never lets an over-long history through
   * unshortened. It learns the same usage and model figures.
   */
  fallback?: EngineSource;
  /**
   * Output tokens kept free for the answer when neither the model nor the request sets `maxTokens`
   * (default 0). Engines get the window less this and every bound tool schema as `budgetTokens`.
   */
  outputReserveTokens?: number;
}

type ModelLike = { model?: unknown; modelName?: unknown; profile?: { maxInputTokens?: unknown }; _llmType?: () => string };

/**
 * A LangChain `createAgent` middleware that lets a ContextEngine manage the
 * agent's context:
 *
 * - before each model call, `shouldCompress` (and preflight) → `compress`; the
 *   result replaces the thread's history in the agent state (persisted, like a
 *   host commit, through a Command returned with the model's answer);
 * - then `selectContext` chooses the messages of this one request (never
 *   persisted); the model gets exactly that list;
 * - the response's `usage_metadata` goes to `updateFromResponse`;
 * - `afterAgent` (only for engines that implement it): `onTurnComplete` with
 *   the finished transcript.
 * - the engine's tools are registered as agent tools.
 *
 * Every engine call is bounded and validated; any failure leaves the
 * messages as they were.
 */
export function contextEngineMiddleware(options: ContextEngineMiddlewareOptions) {
  const emit = (event: AdapterEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // An observer's bug must not break the agent either.
    }
  };
  const timeouts = {
    compressMs: options.timeouts?.compressMs ?? 120_000,
    selectMs: options.timeouts?.selectMs ?? 10_000,
    hookMs: options.timeouts?.hookMs ?? 10_000,
  };
  const sessions = new EngineSessions(options.engine, options.engineContext ?? {}, timeouts.hookMs, (sessionId, hook, error) =>
    emit({ type: "hook.failed", sessionId, hook, error }),
  );
  const defaultSessionId = options.defaultSessionId ?? "default";
  const sessionIdOf = (configurable: Record<string, unknown> | undefined) => {
    const id = configurable?.thread_id;
    return typeof id === "string" && id ? id : typeof id === "number" ? String(id) : defaultSessionId;
  };
  const deps = { emit, compressTimeoutMs: timeouts.compressMs, selectTimeoutMs: timeouts.selectMs };
  const fallbacks = options.fallback ? new FallbackEngines(options.fallback, options.engineContext ?? {}) : null;

  /** Tell the engine the model and window when they change (once per change, not per step). */
  function syncModel(session: ReturnType<EngineSessions["get"]>, model: ModelLike | undefined): void {
    const name = modelName(model) ?? options.engineContext?.model ?? "";
    const profileLimit = model?.profile?.maxInputTokens;
    const contextLength =
      options.contextLength ?? (typeof profileLimit === "number" && profileLimit > 0 ? profileLimit : options.engineContext?.contextLength ?? 0);
    if (contextLength <= 0) return;
    const key = `${name}@${contextLength}`;
    if (session.modelKey === key) return;
    session.modelKey = key;
    const fallback = fallbacks?.get(session.id);
    session.pendingModelUpdate = bounded(() => session.engine.updateModel(name, contextLength), timeouts.hookMs).then((r) => {
      if (!r.ok) emit({ type: "hook.failed", sessionId: session.id, hook: "updateModel", error: r.error });
      const f = fallback ? guarded(() => fallback.updateModel(name, contextLength), undefined) : null;
      if (f?.error) emit({ type: "hook.failed", sessionId: session.id, hook: "fallback.updateModel", error: f.error });
      session.pendingModelUpdate = null;
    });
  }

  const wantsTurns = overridesHook(sessions.templateEngine, "onTurnComplete");
  const middleware = createMiddleware({
    name: options.name ?? "ContextEngineMiddleware",
    tools: engineTools(sessions.templateEngine, { sessions, sessionIdOf, timeoutMs: timeouts.hookMs, emit }),
    // Everything runs inside the model call: each extra graph node (beforeModel,
    // afterAgent) costs the agent loop milliseconds per step.
    wrapModelCall: async (request, handler) => {
      const session = sessions.get(sessionIdOf(request.runtime.configurable as Record<string, unknown> | undefined));
      if (!session.started) await session.ready;
      syncModel(session, request.model as ModelLike);
      if (session.pendingModelUpdate) await session.pendingModelUpdate;
      session.systemMessage = request.systemMessage;
      const history = request.state.messages as BaseMessage[];
      let failure: string | null = session.unavailable ?? null;
      // What this request will take: the window less its output reserve and every tool bound to it.
      const budgetTokens = requestInputBudget(session.engine, request as BudgetRequest, options.outputReserveTokens);
      const stepDeps = { ...deps, budgetTokens };
      const watch = { ...stepDeps, emit: (event: AdapterEvent) => ((failure ??= failureOf(event)), emit(event)) };
      const hint = compactionHint(session, watch);
      let compacted = hint === false ? null : await compactionStep(session, hint, history, request.runtime.signal, watch);
      const fallback = failure !== null ? fallbacks?.get(session.id) : undefined;
      if (fallback) {
        // A broken engine must not leave an over-long history as it is when another engine can shorten it.
        emit({ type: "fallback", sessionId: session.id, engine: nameOf(fallback), reason: failure! });
        const rescue = { ...session, engine: fallback };
        const again = compactionHint(rescue, deps);
        compacted = again === false ? null : await compactionStep(rescue, again, history, request.runtime.signal, stepDeps);
      }
      // An outer middleware's request-only edit wins for this request; the compaction is still persisted.
      const base = compacted && request.messages === history ? compacted : request.messages;
      const selection = !overridesHook(session.engine, "selectContext") ? null : await selectionStep(session, request.systemMessage, base, request.runtime.signal, stepDeps);
      const next = selection
        ? { ...request, systemMessage: selection.systemMessage, messages: selection.messages }
        : base === request.messages
          ? request
          : { ...request, messages: base };
      const response = await handler(next);
      const usage = usageFromResponse(response);
      if (usage) {
        session.lastUsage = usage;
        const r = guarded(() => session.engine.updateFromResponse({ ...usage }), undefined);
        if (r.error) emit({ type: "hook.failed", sessionId: session.id, hook: "updateFromResponse", error: r.error });
        const backup = fallbacks?.get(session.id);
        const f = backup ? guarded(() => backup.updateFromResponse({ ...usage }), undefined) : null;
        if (f?.error) emit({ type: "hook.failed", sessionId: session.id, hook: "fallback.updateFromResponse", error: f.error });
      }
      // Only a plain answer can carry the history update (a structured-output
      // result is the framework's own shape); the engine keeps its state either way.
      if (!compacted || !AIMessage.isInstance(response)) return response;
      // Persist the compaction: the agent appends the response first, then
      // this update replaces the thread's history with compacted + response.
      return new Command({ update: { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...compacted, response] } });
    },
    ...(wantsTurns
      ? {
          afterAgent: async (state: { messages: BaseMessage[] }, runtime: { configurable?: unknown }) => {
            const session = sessions.get(sessionIdOf(runtime.configurable as Record<string, unknown> | undefined));
            if (!overridesHook(session.engine, "onTurnComplete")) return undefined;
            const transcript = toOpenAIMessages(state.messages);
            const usage = session.lastUsage ? { ...session.lastUsage } : null;
            const r = await bounded(() => session.engine.onTurnComplete(transcript, usage, { sessionId: session.id }), timeouts.hookMs);
            if (!r.ok) emit({ type: "hook.failed", sessionId: session.id, hook: "onTurnComplete", error: r.error });
            return undefined;
          },
        }
      : {}),
  });
  return Object.assign(middleware, {
    /** End a thread's engine session (`onSessionEnd`, bounded) and forget its engine. */
    endSession: (threadId: string, messages: readonly BaseMessage[] = []) => sessions.end(threadId, toOpenAIMessages(messages)),
  });
}

/** What makes a step need the fallback: the engine failed deciding the compaction. */
function failureOf(event: AdapterEvent): string | null {
  if (event.type === "compaction.failed") return `compress failed: ${event.error}`;
  if (event.type === "hook.failed" && (event.hook === "shouldCompress" || event.hook === "shouldCompressPreflight")) return `${event.hook} failed: ${event.error}`;
  return null;
}

function nameOf(engine: ContextEngine): string {
  const named = guarded(() => engine.name, "fallback");
  return typeof named.value === "string" ? named.value : "fallback";
}

/** The fallback engine of each thread: one shared engine, or one from the factory per thread. */
class FallbackEngines {
  readonly #byThread = new Map<string, ContextEngine>();
  constructor(
    readonly source: EngineSource,
    readonly init: EngineInitContext,
  ) {
    if (typeof source !== "function" && !isContextEngine(source)) throw new TypeError("contextEngineMiddleware: `fallback` must be a ContextEngine or an EngineFactory");
  }
  get(threadId: string): ContextEngine | undefined {
    if (typeof this.source !== "function") return this.source;
    let engine = this.#byThread.get(threadId);
    if (!engine) {
      const built = guarded(() => (this.source as EngineFactory)(this.init), null);
      if (!built.value || !isContextEngine(built.value)) return undefined;
      engine = built.value;
      this.#byThread.set(threadId, engine);
    }
    return engine;
  }
}

function modelName(model: ModelLike | undefined): string | undefined {
  if (!model) return undefined;
  for (const candidate of [model.model, model.modelName]) if (typeof candidate === "string" && candidate) return candidate;
  try {
    const t = model._llmType?.();
    return typeof t === "string" ? t : undefined;
  } catch {
    return undefined;
  }
}
