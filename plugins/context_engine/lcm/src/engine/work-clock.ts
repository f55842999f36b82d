import { setImmediate as nextMacrotask, setTimeout as sleep } from "node:timers/promises";

/** How often a background wait re-asks its `unless` while a hook is in flight (a hook may come to wait for it). */
const RECHECK_MS = 5;

/**
 * Which of the engine's work is the host's and which is its own background:
 * hooks are counted while in flight, and background work (index slices,
 * summaries of a backlog) runs in slices that start only when no hook is in
 * flight, so a turn's hooks never queue behind them. The CPU time of the
 * process is read (`process.cpuUsage`) at every change of state and the
 * interval is credited to the background when a background slice was active
 * and no hook was: that total is `backgroundCpuMs`, reported in
 * `getStatus().lcm` so a host (or the bench) can tell the engine's background
 * share from a turn's own cost.
 *
 * Where the split is approximate: a slice that awaits I/O (PostgreSQL) lets
 * other code of the process run meanwhile; that code's CPU time is credited
 * to the background unless it is inside a hook, and the rest of a slice that
 * goes on while a hook is in flight is credited to the hook. On SQLite a
 * slice runs without giving the event loop away, so the split is exact there
 * (garbage collection lands wherever it runs).
 */
export class WorkClock {
  #hooks = 0;
  #slices = 0;
  #last = process.cpuUsage();
  #backgroundMicros = 0;
  /** Background waits to wake when the last hook leaves. */
  readonly #waiters = new Set<() => void>();
  /** Called whenever the last hook or background slice in flight ends (the engine's work pauses). */
  readonly #paused: () => void;

  constructor(paused: () => void = () => {}) {
    this.#paused = paused;
  }

  /** CPU time (user + system, ms) of the engine's background slices so far. */
  get backgroundCpuMs(): number {
    return this.#backgroundMicros / 1000;
  }

  /** Whether a hook of the engine is in flight now. */
  get hookInFlight(): boolean {
    return this.#hooks > 0;
  }

  /** Run a host hook: background slices do not start while it is in flight. */
  async hook<T>(fn: () => Promise<T>): Promise<T> {
    this.#mark();
    this.#hooks++;
    try {
      return await fn();
    } finally {
      this.#mark();
      if (--this.#hooks === 0) for (const wake of [...this.#waiters]) wake();
      this.#notePause();
    }
  }

  /** Run one background slice, its CPU time credited to the background (see the class comment for the split). */
  async background<T>(fn: () => Promise<T>): Promise<T> {
    this.#mark();
    this.#slices++;
    try {
      return await fn();
    } finally {
      this.#mark();
      this.#slices--;
      this.#notePause();
    }
  }

  /**
   * Inside a background slice: step out of it for `wait` (a pause, a wait for the hooks), so the time spent
   * waiting is not the slice's.
   */
  async aside(wait: () => Promise<void>): Promise<void> {
    this.#mark();
    this.#slices--;
    try {
      await wait();
    } finally {
      this.#mark();
      this.#slices++;
    }
  }

  /**
   * Resolves when no hook is in flight (or `unless()` holds: a hook in flight waits for this background
   * work, which must go on), always on a later macrotask, so the host's code after a hook runs first.
   */
  async quiet(unless?: () => boolean): Promise<void> {
    for (;;) {
      await nextMacrotask();
      if (this.#hooks === 0 || unless?.()) return;
      let wake!: () => void;
      const woken = new Promise<void>((resolve) => (wake = resolve));
      this.#waiters.add(wake);
      const ac = new AbortController();
      try {
        // Without an `unless` there is nothing to re-ask: wait for the last hook to leave.
        await (unless ? Promise.race([woken, sleep(RECHECK_MS, undefined, { signal: ac.signal, ref: false }).catch(() => {})]) : woken);
      } finally {
        ac.abort();
        this.#waiters.delete(wake);
      }
    }
  }

  #notePause(): void {
    if (this.#hooks === 0 && this.#slices === 0) this.#paused();
  }

  /** Credit the CPU time since the last change of state. */
  #mark(): void {
    const now = process.cpuUsage();
    if (this.#slices > 0 && this.#hooks === 0) this.#backgroundMicros += now.user - this.#last.user + (now.system - this.#last.system);
    this.#last = now;
  }
}
