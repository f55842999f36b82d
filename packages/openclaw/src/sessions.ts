import type { ContextEngine, EngineFactory, EngineInitContext, Message } from "@context-engine/core";
import { describeError, isContextEngine } from "@context-engine/core";
import { InertEngine } from "./inert-engine.js";
import type { OcAgentMessage } from "./openclaw-types.js";

/** What the adapter remembers per OpenClaw session. */
export interface SessionEntry {
  readonly sessionId: string;
  readonly engine: ContextEngine;
  started: Promise<void> | null;
  model: string | undefined;
  budget: number | undefined;
  /** The engine's compacted view standing for the first `coveredCount` host messages; null = no compaction yet. */
  view: Message[] | null;
  coveredCount: number;
  /** Fingerprint of the last host message the view covers, to notice a rewritten transcript. */
  coveredFingerprint: string;
  /** The host messages of the latest assemble (for `compact`, which gets no messages). */
  lastHost: readonly OcAgentMessage[] | null;
  committed: Set<string>;
  inflight: Map<string, Promise<{ status: "committed" | "duplicate" }>>;
  /** Set once the host uses the durable turn API; afterTurn/ingest then stop observing turns. */
  durableHost: boolean;
  pendingIngest: unknown[];
}

/**
 * One engine instance per OpenClaw session, built by the factory on first
 * use. OpenClaw may build and dispose its engine object per run, so a plugin
 * shares one `SessionEngines` across them and engine state survives turns.
 */
export class SessionEngines {
  readonly #factory: EngineFactory;
  readonly #init: EngineInitContext;
  readonly #entries = new Map<string, SessionEntry>();

  constructor(factory: EngineFactory, init: EngineInitContext = {}) {
    this.#factory = factory;
    this.#init = init;
  }

  get(sessionId: string): SessionEntry {
    let entry = this.#entries.get(sessionId);
    if (!entry) {
      entry = {
        sessionId,
        engine: this.#build(sessionId),
        started: null,
        model: undefined,
        budget: undefined,
        view: null,
        coveredCount: 0,
        coveredFingerprint: "",
        lastHost: null,
        committed: new Set(),
        inflight: new Map(),
        durableHost: false,
        pendingIngest: [],
      };
      this.#entries.set(sessionId, entry);
    }
    return entry;
  }

  /** The factory's engine; one that throws gets an inert stand-in (OpenClaw keeps its own messages) and a logged error. */
  #build(sessionId: string): ContextEngine {
    try {
      const engine = this.#factory({ ...this.#init });
      if (isContextEngine(engine)) return engine;
      throw new TypeError("the factory did not return a ContextEngine");
    } catch (err) {
      const reason = describeError(err);
      this.#init.logger?.error(`[context-engine/openclaw] the engine factory failed for session ${sessionId}: ${reason}; OpenClaw keeps the unmodified messages`);
      return new InertEngine(reason);
    }
  }

  entries(): SessionEntry[] {
    return [...this.#entries.values()];
  }

  clear(): void {
    this.#entries.clear();
  }
}
