import type { ChatModelErrorKind } from "@context-engine/core";

/**
 * Everything the compressor remembers about one session. One engine instance
 * may serve several sessions, so nothing of this lives on the engine itself.
 */
export interface SessionState {
  /** Body of the last summary (no prefix), updated rather than re-summarised next time. */
  previousSummary: string | null;
  /** Compactions committed in this session (head protection decays after the first). */
  compactions: number;
  /** Epoch ms until which automatic compaction leaves the summariser alone. */
  cooldownUntil: number;
  cooldownReason: string | null;
  /** Failures in a row, for the cooldown ladder. */
  consecutiveFailures: number;
  /** Set by a terminal failure; while set, a skipped summary aborts instead of falling back. */
  terminalFailure: ChatModelErrorKind | null;
  lastSummaryError: string | null;
  /** Compactions that did not bring the real prompt under the threshold. */
  strikes: number;
  /** Deterministic fallback summaries in a row. */
  fallbackStreak: number;
  /** Epoch ms when a tripped breaker allows one probe; 0 = not armed. */
  breakerDeadline: number;
  /** The next real usage is the verdict on the last compaction. */
  verifyArmed: boolean;
  /** The configured summary model failed; later attempts use the chat model's default. */
  useMainModel: boolean;
  /** Bumped by every committed compaction; stale attempts do not publish over newer ones. */
  commitSeq: number;
  lastCompaction: CompactionRecord | null;
  lastRejection: SummaryRejectionRecord | null;
  /** The task statement (first user request) as first seen; restated after every summary. Undefined until the first compaction looks. */
  task?: string | null;
}

/** A model answer the shared summary acceptance checks refused. */
export interface SummaryRejectionRecord {
  reason: string;
  detail: string;
  at: number;
}

export interface CompactionRecord {
  at: number;
  beforeTokens: number;
  afterTokens: number;
  summarisedMessages: number;
  /** `model`, `extractive` (no model configured), `fallback` (model failed or cooling down). */
  mode: "model" | "extractive" | "fallback";
  durationMs: number;
  /** Set when the model answered but the answer was rejected (truncated, refusal, copy, oversized, invented), so this summary is the fallback. */
  rejected?: { reason: string; detail: string };
}

export function newSessionState(): SessionState {
  return {
    previousSummary: null,
    compactions: 0,
    cooldownUntil: 0,
    cooldownReason: null,
    consecutiveFailures: 0,
    terminalFailure: null,
    lastSummaryError: null,
    strikes: 0,
    fallbackStreak: 0,
    breakerDeadline: 0,
    verifyArmed: false,
    useMainModel: false,
    commitSeq: 0,
    lastCompaction: null,
    lastRejection: null,
  };
}

export const DEFAULT_SESSION = "default";
const MAX_SESSIONS = 256;

/** Sessions by id, least recently used evicted past a bound so long-lived hosts do not leak. */
export class SessionStore {
  readonly #sessions = new Map<string, SessionState>();

  get(id: string | undefined): SessionState {
    const key = id || DEFAULT_SESSION;
    let state = this.#sessions.get(key);
    if (state) {
      this.#sessions.delete(key);
    } else {
      state = newSessionState();
      if (this.#sessions.size >= MAX_SESSIONS) {
        const oldest = this.#sessions.keys().next().value;
        if (oldest !== undefined) this.#sessions.delete(oldest);
      }
    }
    this.#sessions.set(key, state);
    return state;
  }

  peek(id: string | undefined): SessionState | undefined {
    return this.#sessions.get(id || DEFAULT_SESSION);
  }

  delete(id: string | undefined): void {
    this.#sessions.delete(id || DEFAULT_SESSION);
  }

  all(): IterableIterator<SessionState> {
    return this.#sessions.values();
  }

  get size(): number {
    return this.#sessions.size;
  }
}
