import { createEstimator, isContextEngine, silentLogger } from "@context-engine/core";
import type { ChatModel, ContextEngine, EngineFactory, EngineInitContext, Logger, TokenCounter } from "@context-engine/core";
import { describeError } from "@context-engine/core";
import { EngineFigures } from "./compaction/engine-figures.js";
import { HostError } from "./errors.js";
import { resolveHostConfig } from "./config.js";
import { withListMemo } from "./request/list-tokens.js";
import type { HostConfig, HostConfigInput } from "./config.js";
import { EventBus } from "./event-bus.js";
import type { HostEvent, HostEventListener, HostEventType } from "./events.js";
import type { HostRuntime } from "./runtime.js";
import { Session } from "./session/session.js";
import type { OpenSessionOptions } from "./session/session.js";
import { HookBreakers } from "./session/hook-breaker.js";
import { normalizeAgentTools } from "./tools.js";
import { MessageClock, type RecordedTime } from "./session/message-clock.js";
import type { FunctionTool, ToolDefinition, ToolExecutor } from "./tools.js";

export interface AgentHostOptions {
  /**
   * The active engine (from `loadEngine`, or any ContextEngine). Without
   * `engineFactory`, every session shares it; with one, it serves the first
   * session opened.
   */
  engine?: ContextEngine;
  /**
   * Builds one engine per session (`loadEngine(...).createEngine`), so that
   * threshold, model, cooldowns and counters belong to a session. Called
   * with `engineContext` plus the session's model and window.
   */
  engineFactory?: EngineFactory;
  /** The context handed to `engineFactory` (the loader's `initContext`). */
  engineContext?: EngineInitContext;
  /** The model that answers the agent's requests. */
  chatModel: ChatModel;
  /** The agent's own tools (engine tools are added per session). */
  tools?: readonly ToolDefinition[];
  /** Runs the agent's own tools; engine tools never reach it. */
  executeTool?: ToolExecutor;
  config?: HostConfigInput;
  logger?: Logger;
  /** Receives every event (same as `host.onAny`). */
  onEvent?: (event: HostEvent) => void;
  /** Token counter for estimates and over-window checks; default: core's fast estimator. */
  tokenCounter?: TokenCounter;
  /**
   * When a message was said, for a host that knows better than its clock (a replay of a recording):
   * epoch ms, or null to use the clock. Engines get the times as `messageTimes`.
   */
  messageTime?: RecordedTime;
}

/**
 * The reference agent loop. One host drives one engine instance, possibly
 * across several concurrent sessions.
 *
 * ```ts
 * const host = new AgentHost({ engine, chatModel, tools, executeTool, config });
 * const session = await host.openSession({ model: "gpt-4o-mini", contextLength: 128000 });
 * const result = await session.send("hello");
 * await session.end();
 * ```
 */
export class AgentHost {
  /** The shared engine, or with a factory the first instance (used by the first session). */
  readonly engine: ContextEngine;
  readonly #factory: EngineFactory | null;
  readonly #engineContext: EngineInitContext;
  #firstEngineFree: boolean;
  readonly chatModel: ChatModel;
  readonly config: HostConfig;
  readonly #runtime: HostRuntime;
  readonly #bus: EventBus;
  readonly #sessions = new Map<Session, true>();
  #expiryTimer: ReturnType<typeof setInterval> | undefined;
  #closed = false;

  constructor(options: AgentHostOptions) {
    if (options.engineFactory !== undefined && typeof options.engineFactory !== "function") {
      throw new TypeError("AgentHost: `engineFactory` must be a function (context) => ContextEngine");
    }
    this.#factory = options.engineFactory ?? null;
    this.#engineContext = { ...options.engineContext };
    const engine = options.engine ?? (this.#factory ? this.#factory({ ...this.#engineContext }) : undefined);
    if (!isContextEngine(engine)) {
      throw new TypeError("AgentHost: `engine` must be a ContextEngine (name, updateFromResponse, shouldCompress, compress), or give `engineFactory`");
    }
    this.#firstEngineFree = this.#factory !== null;
    if (!options.chatModel || typeof options.chatModel.complete !== "function") {
      throw new TypeError("AgentHost: `chatModel` must have a complete(request) method");
    }
    if (options.executeTool !== undefined && typeof options.executeTool !== "function") {
      throw new TypeError("AgentHost: `executeTool` must be a function");
    }
    const logger = options.logger ?? silentLogger;
    this.engine = engine;
    this.chatModel = options.chatModel;
    this.config = resolveHostConfig(withEngineTimeout(options.config, engine));
    this.#bus = new EventBus(logger);
    if (options.onEvent) this.#bus.onAny(options.onEvent);
    const agentTools: FunctionTool[] = normalizeAgentTools(options.tools);
    this.#runtime = {
      engine,
      chatModel: options.chatModel,
      bus: this.#bus,
      logger,
      counter: withListMemo(options.tokenCounter ?? createEstimator()),
      config: this.config,
      agentTools,
      executeTool: options.executeTool,
      figures: new EngineFigures(engine),
      compacting: new Set(),
      clock: new MessageClock(options.messageTime),
      hookBreakers: new HookBreakers(this.config.hookBreaker),
    };
    this.#applyThresholds(engine);
    if (this.config.sessionIdleTimeoutSeconds > 0) {
      const ms = this.config.sessionIdleTimeoutSeconds * 1000;
      this.#expiryTimer = setInterval(() => void this.expireIdleSessions(ms), Math.min(ms, 60_000));
      this.#expiryTimer.unref?.();
    }
  }

  /** Subscribe to one event type; returns an unsubscribe function. */
  on<T extends HostEventType>(type: T, listener: HostEventListener<T>): () => void {
    return this.#bus.on(type, listener);
  }

  /** Subscribe to every event; returns an unsubscribe function. */
  onAny(listener: (event: HostEvent) => void): () => void {
    return this.#bus.onAny(listener);
  }

  /** Open a session: `updateModel`, then `onSessionStart`, then the engine's tools are injected. */
  async openSession(options: OpenSessionOptions): Promise<Session> {
    if (this.#closed) throw new TypeError("AgentHost: the host is closed");
    if (!options || typeof options.model !== "string" || !options.model.trim()) {
      throw new TypeError("openSession: `model` (a non-empty model name) is required");
    }
    if (options.contextLength !== undefined && !(Number.isFinite(options.contextLength) && options.contextLength >= 0)) {
      throw new TypeError(`openSession: contextLength must be a non-negative number, got ${String(options.contextLength)}`);
    }
    const session = new Session(this.#runtimeFor(options), { ...options }, (s) => this.#sessions.delete(s));
    this.#sessions.set(session, true);
    await session.start();
    return session;
  }

  /** The shared runtime, or with a factory a copy holding this session's own engine. */
  #runtimeFor(options: OpenSessionOptions): HostRuntime {
    if (!this.#factory) return this.#runtime;
    if (this.#firstEngineFree) {
      this.#firstEngineFree = false;
      return { ...this.#runtime, figures: new EngineFigures(this.engine) };
    }
    const context: EngineInitContext = { ...this.#engineContext, model: options.model };
    if (options.contextLength !== undefined) context.contextLength = options.contextLength;
    let engine: unknown;
    try {
      engine = this.#factory(context);
    } catch (error) {
      throw new HostError("engine_unavailable", `openSession: the engine factory threw: ${describeError(error)}`, { cause: error });
    }
    if (!isContextEngine(engine)) throw new HostError("engine_unavailable", "openSession: the engine factory did not return a ContextEngine");
    this.#applyThresholds(engine);
    return { ...this.#runtime, engine, figures: new EngineFigures(engine) };
  }

  // compression.model_thresholds reaches each engine before its first updateModel.
  #applyThresholds(engine: ContextEngine): void {
    if (!this.config.modelThresholds) return;
    try {
      engine.modelThresholds = { ...this.config.modelThresholds };
    } catch {
      // an engine with a read-only field keeps its own thresholds
    }
  }

  /** Open sessions. */
  get sessions(): Session[] {
    return [...this.#sessions.keys()];
  }

  /** End sessions idle (nothing running or queued) for at least `maxIdleMs` (`onSessionEnd`, reason `expired`). */
  async expireIdleSessions(maxIdleMs: number): Promise<number> {
    const now = Date.now();
    const stale = this.sessions.filter((s) => !s.busy && now - s.lastActivity >= maxIdleMs);
    await Promise.all(stale.map((s) => s.end("expired")));
    return stale.length;
  }

  /** Exit: end every open session (`onSessionEnd`, reason `close`). */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#expiryTimer) clearInterval(this.#expiryTimer);
    await Promise.all(this.sessions.map((s) => s.end("close")));
  }
}

/**
 * The built-in compressor carries `compression.context_timeout_seconds` as
 * `contextTimeoutSeconds`; use it when the host options do not set one.
 */
function withEngineTimeout(config: HostConfigInput | undefined, engine: ContextEngine): HostConfigInput {
  const out: HostConfigInput = { ...config };
  if (out.contextTimeoutSeconds === undefined) {
    const fromEngine = (engine as { contextTimeoutSeconds?: unknown }).contextTimeoutSeconds;
    if (typeof fromEngine === "number" && Number.isFinite(fromEngine) && fromEngine >= 0) out.contextTimeoutSeconds = fromEngine;
  }
  return out;
}
