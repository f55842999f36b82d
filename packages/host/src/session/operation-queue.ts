/**
 * A session's operations run one at a time in call order. After a turn's answer is returned its
 * `onTurnComplete` still runs ("observation"); the next operation waits for it, so nothing else touches the
 * engine while the engine takes the turn in.
 */
export class OperationQueue {
  #queue: Promise<unknown> = Promise.resolve();
  #observation: Promise<void> = Promise.resolve();
  #pending = 0;
  #lastActivity = Date.now();

  /** When the last operation started or finished (ms since the epoch). */
  get lastActivity(): number {
    return this.#lastActivity;
  }

  /** Whether an operation or an observation is running or queued. */
  get busy(): boolean {
    return this.#pending > 0;
  }

  /**
   * Queue `fn` behind every earlier operation and the last observation. `refuse` is asked before queueing and
   * again right before `fn` runs: a session ended meanwhile rejects with what it returns.
   */
  enqueue<T>(fn: () => Promise<T>, refuse: () => Error | null): Promise<T> {
    const early = refuse();
    if (early) return Promise.reject(early);
    this.#pending++;
    const run = this.#queue.then(async () => {
      await this.#observation;
      const late = refuse();
      if (late) throw late;
      this.#lastActivity = Date.now();
      return fn();
    });
    const settled = () => {
      this.#pending--;
      this.#lastActivity = Date.now();
    };
    this.#queue = run.then(settled, settled);
    return run;
  }

  /** Start `observe` once the caller has had the turn's result; the queue counts as busy until it settles. */
  observeLater(observe: () => Promise<void>): void {
    this.#pending++;
    this.#observation = new Promise<void>((resolve) => setImmediate(resolve))
      .then(observe)
      .catch(() => undefined)
      .finally(() => {
        this.#pending--;
        this.#lastActivity = Date.now();
      });
  }

  /** Resolves once every queued operation and the last observation have settled. */
  async idle(): Promise<void> {
    while (this.#pending > 0) {
      await this.#queue;
      await this.#observation;
    }
  }
}
