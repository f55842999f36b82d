import { describeErrorWithCauses } from "@context-engine/core";
import type { Logger } from "@context-engine/core";
import type { LcmStoreDriver } from "../store/types.js";
import type { WorkClock } from "./work-clock.js";

/**
 * How long the engine's work must have paused before the log is settled: the hooks of one turn and the
 * background work they start settle once, after the last of them.
 */
export const SETTLE_AFTER_MS = 20;
/**
 * Pages the log must hold before it is settled: a quarter of the 256 at which SQLite checkpoints inside a commit
 * (wal.ts), so a hook would have to write 192 pages itself to reach that. Settling every pause instead copied the
 * same hot pages once per turn: background CPU per compaction at 100k rose from 187 to 296 ms and
 * `onTurnComplete` CPU p50 from 0.98 to 1.25 ms (bench, load 1.2–1.4).
 */
export const SETTLE_MIN_FRAMES = 64;

/**
 * Settles the store's write-ahead log between hooks (SQLite: a passive
 * checkpoint, store/sqlite/wal.ts), so that a hook's own commit does not
 * copy the log into the database and wait for its two fsyncs: that is what
 * the slowest compaction triggers spent beyond their CPU time. It runs once
 * the engine's work (hooks and background slices, `WorkClock`) has paused
 * for `SETTLE_AFTER_MS`, as a background slice, or at once in `flush()`
 * (`whenIdle`). A store without a log of its own (PostgreSQL) is left alone.
 */
export class LogSettler {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | null = null;
  #stopped = false;

  constructor(
    private readonly clock: WorkClock,
    private readonly storeNow: () => LcmStoreDriver | null,
    private readonly logger: Logger,
  ) {}

  /** The engine's work paused (no hook, no background slice in flight): settle soon, unless work resumes first. */
  paused(): void {
    // The settle's own slice ends in a pause too: it must not schedule another.
    if (this.#stopped || this.#running || !this.storeNow()?.settleLog) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.flush(), SETTLE_AFTER_MS);
    this.#timer.unref();
  }

  /** Settle now (after the hooks in flight); resolves when done. Never rejects. */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#running ??= this.#settle().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async #settle(): Promise<void> {
    const store = this.storeNow();
    if (this.#stopped || !store?.settleLog) return;
    try {
      await this.clock.quiet();
      if (this.#stopped) return;
      await this.clock.background(async () => void (await store.settleLog!({ minFrames: SETTLE_MIN_FRAMES })));
    } catch (error) {
      // Advisory: the 256-page checkpoint inside a commit still bounds the log.
      this.logger.warn("lcm: settling the write-ahead log failed", { error: describeErrorWithCauses(error) });
    }
  }
}
