/**
 * Calls `onQuiet` once writes have paused for `quietMs`, on an unref'd timer
 * (never inside a hook or a write): `wrote()` after each write, `stop()` on
 * close. One timer serves a burst of writes: it re-arms itself for what is
 * left of the pause, so a write during the pause postpones the work.
 */
export class QuietTimer {
  readonly #quietMs: number;
  readonly #onQuiet: () => void;
  #lastWrite = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(quietMs: number, onQuiet: () => void) {
    this.#quietMs = quietMs;
    this.#onQuiet = onQuiet;
  }

  wrote(): void {
    this.#lastWrite = performance.now();
    if (this.#timer === undefined) this.#arm(this.#quietMs);
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(ms: number): void {
    this.#timer = setTimeout(() => this.#fire(), ms);
    this.#timer.unref();
  }

  #fire(): void {
    this.#timer = undefined;
    const quiet = performance.now() - this.#lastWrite;
    if (quiet < this.#quietMs) {
      this.#arm(this.#quietMs - quiet);
      return;
    }
    this.#onQuiet();
  }
}
