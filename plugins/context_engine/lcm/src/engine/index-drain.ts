import { setTimeout as sleep } from "node:timers/promises";
import { describeErrorWithCauses } from "@context-engine/core";
import type { Logger } from "@context-engine/core";
import type { LcmStoreDriver } from "../store/types.js";
import type { WorkClock } from "./work-clock.js";

/** Time one slice may take: a hook that arrives meanwhile waits at most about this long. */
const SLICE_MS = 4;

/** The pause after a slice that used `cpuMs` so that the drain stays within `share` of one core. */
export function pauseFor(cpuMs: number, share: number): number {
  return share >= 1 ? 0 : Math.ceil((cpuMs * (1 - share)) / share);
}

/**
 * Full-text indexing of a bulk import's backlog, off the hook path: after an
 * ingest the engine kicks it, and it indexes in small slices with the event
 * loop free between them (in a real session the host is mostly waiting for
 * the provider then), until nothing is pending, then brings the store's
 * ranking aids (impact lists) up to the index the same way. Like the backlog
 * drain it keeps within `drain_cpu_share` of one core (a pause after each
 * slice, counting the slices' own CPU time on the engine's work clock), and a
 * slice starts only when no hook is in flight, so the hooks of the turns that
 * follow an import do not queue behind it. A search indexes what is left before it runs, so
 * results never depend on how far this got.
 */
export class IndexDrain {
  #running: Promise<void> | null = null;

  constructor(
    private readonly logger: Logger,
    private readonly isClosed: () => boolean,
    private readonly clock: WorkClock,
    private readonly cpuShare = 1,
  ) {}

  kick(store: LcmStoreDriver): void {
    if (this.#running || this.isClosed()) return;
    this.#running = this.#drain(store).finally(() => {
      this.#running = null;
    });
  }

  /** Resolves when the current drain (if any) has stopped. */
  idle(): Promise<void> {
    return this.#running ?? Promise.resolve();
  }

  async #drain(store: LcmStoreDriver): Promise<void> {
    try {
      for (;;) {
        await this.clock.quiet();
        if (this.isClosed()) return;
        const before = this.clock.backgroundCpuMs;
        const done = await this.clock.background(() => this.#slice(store));
        if (done) return;
        const pause = pauseFor(this.clock.backgroundCpuMs - before, this.cpuShare);
        if (pause > 0) await sleep(pause);
      }
    } catch (error) {
      if (!this.isClosed()) this.logger.warn("lcm: background full-text indexing stopped", { error: describeErrorWithCauses(error) });
    }
  }

  /** One slice: index what is pending, then the ranking aids that follow the index (impact lists of large conversations). */
  async #slice(store: LcmStoreDriver): Promise<boolean> {
    const { remaining } = await store.indexPending({ maxMs: SLICE_MS });
    if (remaining > 0) return false;
    const search = await store.searchStore();
    return !search.catchUpLists || (await search.catchUpLists({ maxMs: SLICE_MS }));
  }
}
