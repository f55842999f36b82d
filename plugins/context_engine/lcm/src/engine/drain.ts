import { importing } from "./import-drain.js";
import { randomUUID } from "node:crypto";
import { describeError } from "@context-engine/core";
import type { LcmStoreDriver } from "../store/types.js";
import type { EngineParts } from "./parts.js";
import { startPreparing } from "./preparation.js";
import type { EngineSession } from "./session.js";

/** Runs in a row that shrink nothing (the lock held elsewhere, nothing eligible) before the drain waits for the next hook. */
const STALLED_RUNS = 3;
/** The shortest pause between runs: the event loop always gets a turn. */
const MIN_PAUSE_MS = 1;
/**
 * How long a drain claim holds without renewal (each run renews it): longer than a run of `backlog_passes`
 * summaries takes, short enough that a process that died holding it delays the others by minutes at most.
 */
export const DRAIN_CLAIM_MS = 120_000;
/** The wait before asking again when another process holds the claim. */
const CLAIM_RETRY_MS = 1_000;

/**
 * The scheduled drain of a session whose published frontier is over the
 * threshold (a history imported or resumed at once, whose host list stays
 * small and never asks for a compress): background runs of at most
 * `backlog_passes` summaries, each published at once (under the session's
 * lock and the store's compaction lock, as a compare-and-swap per step),
 * until the frontier is under the threshold. Between runs it sleeps on an
 * unref'd timer long enough that its share of one core stays under
 * `drain_cpu_share` (measured on the engine's work clock: the CPU time of its
 * background slices, not of the hooks that ran meanwhile). A run starts, and
 * each summary of it, only when no hook is in flight.
 *
 * Nothing of it lives only in memory: each published step is committed in
 * the store, and a restarted engine starts the drain again for a session
 * whose stored frontier is over the threshold (any hook of that session,
 * `onSessionStart` included). It stops when the session ends or resets and
 * when the engine closes.
 */
export class BacklogDrain {
  /** This engine's name on a drain claim (store.claimDrain): other processes sharing the store wait while it drains. */
  readonly #owner = randomUUID();
  readonly #running = new Map<EngineSession, Promise<void>>();
  /** Pauses in progress: unref'd (they never keep a process alive) unless someone awaits `idle()`. */
  readonly #pauses = new Set<NodeJS.Timeout>();
  #waiters = 0;

  /** Start draining the session unless it is under the threshold or already draining (no store call). */
  kick(parts: EngineParts, store: LcmStoreDriver, s: EngineSession): void {
    if (s.snapshot.frontierTokens >= parts.budgets.drainAt()) this.#start(parts, store, s, false);
  }

  /** The same, reading the session's frontier first (off the hook path): after a compress, whose passes are bounded. */
  check(parts: EngineParts, store: LcmStoreDriver, s: EngineSession): void {
    this.#start(parts, store, s, true);
  }

  #start(parts: EngineParts, store: LcmStoreDriver, s: EngineSession, readFirst: boolean): void {
    if (!parts.config.prepare_in_background || parts.isClosed() || this.#running.has(s) || importing(s)) return;
    const run = (async () => {
      if (readFirst) {
        const conv = await store.getConversation(s.conversationId);
        if (!conv || parts.isClosed()) return;
        s.noteConversation(conv);
        if (conv.frontierTokens < parts.budgets.drainAt()) return;
      }
      await this.#drain(parts, store, s);
    })()
      .catch((error: unknown) => {
        if (!parts.isClosed()) parts.logger.warn("lcm: background drain stopped", { sessionId: s.sessionId, error: describeError(error) });
      })
      .finally(() => this.#running.delete(s));
    this.#running.set(s, run);
  }

  /** Resolves when the session's drain (every drain, without a session) has stopped. */
  async idle(s?: EngineSession): Promise<void> {
    // Someone waits for the drain: its pauses keep the process alive meanwhile (else a script's await would end it).
    this.#waiters++;
    for (const pause of this.#pauses) pause.ref();
    try {
      for (;;) {
        const runs = s ? [this.#running.get(s)].filter((r) => r !== undefined) : [...this.#running.values()];
        if (!runs.length) return;
        await Promise.allSettled(runs);
      }
    } finally {
      this.#waiters--;
    }
  }

  /** Sleep `ms`, or less if `signal` aborts. */
  #pause(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#pauses.delete(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      if (this.#waiters === 0) timer.unref();
      this.#pauses.add(timer);
      signal.addEventListener("abort", done, { once: true });
    });
  }

  /** Whether the session is draining now (for status). */
  draining(s: EngineSession): boolean {
    return this.#running.has(s);
  }

  async #drain(parts: EngineParts, store: LcmStoreDriver, s: EngineSession): Promise<void> {
    const signal = s.signal;
    const stopped = () => signal.aborted || parts.isClosed();
    let last = s.snapshot.frontierTokens;
    let stalled = 0;
    let waited = false;
    parts.metrics.drains++;
    try {
      while (!stopped()) {
        // A run starts when no hook is in flight (a compress queued on the session's lock goes on at once).
        await parts.clock.quiet(() => s.busy);
        if (stopped()) return;
        const cpuBefore = parts.clock.backgroundCpuMs;
        if (!((await store.claimDrain?.(s.conversationId, this.#owner, DRAIN_CLAIM_MS)) ?? true)) {
          // Another process drains this conversation: the summaries computed here would be thrown away.
          parts.metrics.drainClaimWaits++;
          if (++stalled >= STALLED_RUNS) return;
          await this.#pause(CLAIM_RETRY_MS, signal);
          waited = true;
          continue;
        }
        // The claim was another's until now: its holder may have drained the backlog meanwhile.
        if (waited && !(await this.#stillOver(parts, store, s))) return;
        waited = false;
        startPreparing(parts, store, s);
        await s.preparing;
        if (stopped()) return;
        const conv = await store.getConversation(s.conversationId);
        if (!conv) return;
        s.noteConversation(conv);
        if (conv.frontierTokens < parts.budgets.drainAt()) return;
        stalled = conv.frontierTokens < last ? 0 : stalled + 1;
        last = conv.frontierTokens;
        if (stalled >= STALLED_RUNS) {
          parts.logger.debug("lcm: background drain made no progress; the next hook tries again", { sessionId: s.sessionId, frontierTokens: last });
          return;
        }
        parts.metrics.drainRuns++;
        await this.#pause(pauseAfter(parts.clock.backgroundCpuMs - cpuBefore, parts.config.drain_cpu_share), signal);
      }
    } finally {
      // close() waits for the drain before closing the store; a release that fails leaves the claim to expire.
      await Promise.resolve(store.releaseDrain?.(s.conversationId, this.#owner)).catch(() => {});
    }
  }

  async #stillOver(parts: EngineParts, store: LcmStoreDriver, s: EngineSession): Promise<boolean> {
    const conv = await store.getConversation(s.conversationId);
    if (!conv) return false;
    s.noteConversation(conv);
    return conv.frontierTokens >= parts.budgets.drainAt();
  }
}

/** The pause that keeps a run of `cpuMs` background CPU time within `share` of one core. */
function pauseAfter(cpuMs: number, share: number): number {
  return Math.max(MIN_PAUSE_MS, Math.ceil((cpuMs * (1 - share)) / share));
}
