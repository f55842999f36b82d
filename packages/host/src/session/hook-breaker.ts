/**
 * Circuit breakers for engine hooks that time out, one set per session.
 *
 * A hook that timed out once in a turn is not awaited again in that turn: a
 * hung `onSessionStart` at each compaction boundary would otherwise hold the
 * turn for attempts × bound. A hook that times out `openAfter` times in a row
 * (across turns) is skipped for `retryAfterMs`; then one call is let through
 * (half-open): settling in time closes the breaker, another timeout reopens it.
 * Only timeouts count: a hook that throws answered, so it is not hung.
 */
export interface HookBreakerOptions {
  /** Consecutive timeouts of one hook that open its breaker (0: never open across turns). */
  openAfter: number;
  /** How long an open breaker skips the hook before one trial call. */
  retryAfterMs: number;
}

/** Why a hook call is skipped, or null to call it. */
export type SkipReason = "timed out earlier in this turn" | "breaker open";

interface HookState {
  /** The turn in which this hook last timed out (null outside a turn). */
  timedOutInTurn: string | null;
  consecutiveTimeouts: number;
  /** While now < openUntil the breaker is open. */
  openUntil: number;
}

export class HookBreaker {
  readonly #options: HookBreakerOptions;
  readonly #now: () => number;
  readonly #hooks = new Map<string, HookState>();

  constructor(options: HookBreakerOptions, now: () => number = Date.now) {
    this.#options = options;
    this.#now = now;
  }

  /** Whether to skip `hook` now, and why. */
  skipReason(hook: string, turnId: string | null): SkipReason | null {
    const state = this.#hooks.get(hook);
    if (!state) return null;
    if (turnId !== null && state.timedOutInTurn === turnId) return "timed out earlier in this turn";
    if (this.#now() < state.openUntil) return "breaker open";
    return null;
  }

  /** A call of `hook` timed out. */
  recordTimeout(hook: string, turnId: string | null): void {
    const state = this.#hooks.get(hook) ?? { timedOutInTurn: null, consecutiveTimeouts: 0, openUntil: 0 };
    state.timedOutInTurn = turnId;
    state.consecutiveTimeouts++;
    const { openAfter, retryAfterMs } = this.#options;
    if (openAfter > 0 && state.consecutiveTimeouts >= openAfter) state.openUntil = this.#now() + retryAfterMs;
    this.#hooks.set(hook, state);
  }

  /** A call of `hook` settled within its bound (answered or threw): it is not hung. */
  recordSettled(hook: string): void {
    this.#hooks.delete(hook);
  }

  /** Whether `hook`'s breaker is open now (for status and tests). */
  isOpen(hook: string): boolean {
    return this.#now() < (this.#hooks.get(hook)?.openUntil ?? 0);
  }
}

/** One breaker per session id, created on first use. */
export class HookBreakers {
  readonly #options: HookBreakerOptions;
  readonly #bySession = new Map<string, HookBreaker>();

  constructor(options: HookBreakerOptions) {
    this.#options = options;
  }

  for(sessionId: string): HookBreaker {
    let breaker = this.#bySession.get(sessionId);
    if (!breaker) {
      breaker = new HookBreaker(this.#options);
      this.#bySession.set(sessionId, breaker);
    }
    return breaker;
  }

  /** The session ended: drop its breaker. */
  forget(sessionId: string): void {
    this.#bySession.delete(sessionId);
  }
}
