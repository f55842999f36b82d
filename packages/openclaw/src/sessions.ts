import type { ContextEngine, EngineFactory, EngineInitContext, Message } from "@context-engine/core";
import { describeErrorWithCauses, isContextEngine } from "@context-engine/core";
import { InertEngine } from "./inert-engine.js";
import type { OcAgentMessage } from "./openclaw-types.js";

/** One list an assemble returned: its messages' fingerprints and the host transcript it stood for. */
export interface AssembledOutput {
  fingerprints: string[];
  standsFor: Message[];
}

/** What the adapter remembers per OpenClaw session. */
export interface SessionEntry {
  readonly sessionId: string;
  readonly engine: ContextEngine;
  started: Promise<void> | null;
  model: string | undefined;
  /** The model's context window the engine was told (`updateModel`); never a per-call budget. */
  window: number | undefined;
  /** Where `window` came from: the model's configuration (final) or window-sized host budgets (a lower bound). */
  windowSource: "model" | "budget" | undefined;
  /** The engine's compacted view standing for the first `coveredCount` host messages; null = no compaction yet. */
  view: Message[] | null;
  coveredCount: number;
  /** Fingerprint of the last host message the view covers, to notice a rewritten transcript. */
  coveredFingerprint: string;
  /** The host messages of the latest assemble (for `compact`, which gets no messages). */
  lastHost: readonly OcAgentMessage[] | null;
  /** The history of the turn-start assemble (fenced before the turn's user entry): what precedes a committed turn. */
  turnHistory: readonly OcAgentMessage[] | null;
  /** The prompt of the turn-start assemble (OpenClaw merges a crash-recovered user message into it). */
  lastPrompt: string | undefined;
  /**
   * Lists recent assembles returned (newest first), each with OpenClaw's transcript (converted) it
   * stood for: OpenClaw passes the turn-start result back, plus the step's messages, on every model step.
   */
  outputs: AssembledOutput[];
  /** The engine's stored history was assembled once in this process (engines whose store is shared). */
  seeded: boolean;
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
        window: undefined,
        windowSource: undefined,
        view: null,
        coveredCount: 0,
        coveredFingerprint: "",
        lastHost: null,
        turnHistory: null,
        lastPrompt: undefined,
        outputs: [],
        seeded: false,
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
      const reason = describeErrorWithCauses(err);
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
