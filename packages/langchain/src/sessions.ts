import type { EngineFactory, EngineInitContext, Message } from "@context-engine/core";
import { ContextEngine, describeError, isContextEngine, redactSecrets } from "@context-engine/core";
import type { Usage } from "@context-engine/core";
import type { SystemMessage } from "@langchain/core/messages";
import { bounded } from "./bounded.js";

export interface SessionState {
  readonly id: string;
  readonly engine: ContextEngine;
  /** Settles when onSessionStart has finished (or failed, or timed out). */
  readonly ready: Promise<void>;
  /** True once `ready` has settled, so hot paths skip the await. */
  started: boolean;
  /** `model@contextLength` last given to updateModel. */
  modelKey: string | null;
  /** An updateModel call still running; awaited before the engine is asked anything. */
  pendingModelUpdate: Promise<void> | null;
  /** The system message of the last model request, so compaction sees it too. */
  systemMessage: SystemMessage | null;
  lastUsage: Usage | null;
  /** Why this thread has no engine of its own (its factory threw); it then runs untouched, or on the fallback. */
  unavailable?: string;
}

/** Stands in for a thread whose factory failed: never compresses, so the model call goes on as it is. */
class NoEngine extends ContextEngine {
  get name(): string {
    return "unavailable";
  }
  updateFromResponse(): void {}
  shouldCompress(): boolean {
    return false;
  }
  compress(messages: Message[]): Message[] {
    return messages;
  }
}

export type EngineSource = ContextEngine | EngineFactory;

/**
 * One engine per LangGraph thread. A single engine serves every thread it is
 * given; a factory is called once per thread (the first instance is built at
 * once, to read the tool schemas, and serves the first thread).
 */
export class EngineSessions {
  readonly #sessions = new Map<string, SessionState>();
  readonly #factory: EngineFactory | null;
  readonly #init: EngineInitContext;
  #spare: ContextEngine | null;
  readonly #hookTimeoutMs: number;
  readonly #onFailure: (sessionId: string, hook: string, error: string) => void;

  constructor(
    source: EngineSource,
    init: EngineInitContext,
    hookTimeoutMs: number,
    onFailure: (sessionId: string, hook: string, error: string) => void,
  ) {
    this.#init = init;
    this.#hookTimeoutMs = hookTimeoutMs;
    this.#onFailure = onFailure;
    if (typeof source === "function") {
      this.#factory = source;
      this.#spare = this.#build();
    } else {
      if (!isContextEngine(source)) throw new TypeError("contextEngineMiddleware: `engine` must be a ContextEngine or an EngineFactory");
      this.#factory = null;
      this.#spare = source;
    }
  }

  /** The engine whose tool schemas the middleware exposes. */
  get templateEngine(): ContextEngine {
    return this.#spare ?? this.#sessions.values().next().value!.engine;
  }

  get(id: string): SessionState {
    const existing = this.#sessions.get(id);
    if (existing) return existing;
    let engine: ContextEngine;
    if (this.#factory === null) engine = this.#spare!;
    else if (this.#spare) {
      engine = this.#spare;
      this.#spare = null;
    } else {
      try {
        engine = this.#build();
      } catch (error) {
        // A factory that fails for one thread must not fail the app's model call: the thread runs without
        // its engine this time (the fallback, if any, steps in) and the factory is asked again next time.
        const reason = redactSecrets(`the engine factory failed for this thread: ${describeError(error).split("\n")[0]}`);
        this.#onFailure(id, "engineFactory", reason);
        return { id, engine: new NoEngine(), ready: Promise.resolve(), started: true, modelKey: null, pendingModelUpdate: null, systemMessage: null, lastUsage: null, unavailable: reason };
      }
    }
    const startOptions = {
      ...(this.#init.model ? { model: this.#init.model } : {}),
      ...(this.#init.contextLength ? { contextLength: this.#init.contextLength } : {}),
      ...(this.#init.dataDir ? { dataDir: this.#init.dataDir } : {}),
      platform: "langchain",
    };
    const ready = bounded(() => engine.onSessionStart(id, startOptions), this.#hookTimeoutMs).then((r) => {
      if (!r.ok) this.#onFailure(id, "onSessionStart", r.error);
    });
    const state: SessionState = { id, engine, ready, started: false, modelKey: null, pendingModelUpdate: null, systemMessage: null, lastUsage: null };
    void ready.then(() => {
      state.started = true;
    });
    this.#sessions.set(id, state);
    return state;
  }

  /** End a thread's session: `onSessionEnd` (bounded) and forget it. */
  async end(id: string, messages: Parameters<ContextEngine["onSessionEnd"]>[1] = []): Promise<void> {
    const state = this.#sessions.get(id);
    if (!state) return;
    this.#sessions.delete(id);
    await state.ready;
    const r = await bounded(() => state.engine.onSessionEnd(id, messages), this.#hookTimeoutMs);
    if (!r.ok) this.#onFailure(id, "onSessionEnd", r.error);
  }

  #build(): ContextEngine {
    const engine = this.#factory!(this.#init);
    if (!isContextEngine(engine)) throw new TypeError("contextEngineMiddleware: the engine factory did not return a ContextEngine");
    return engine;
  }
}
