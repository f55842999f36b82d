import { setImmediate as yieldToEvents } from "node:timers/promises";
import { describeErrorWithCauses } from "@context-engine/core";
import type { Logger } from "@context-engine/core";
import type { LcmStoreDriver } from "../store/types.js";

/** Time one slice may take: a hook that arrives meanwhile waits at most about this long. */
const SLICE_MS = 4;

/**
 * Full-text indexing of a bulk import's backlog, off the hook path: after an
 * ingest the engine kicks it, and it indexes in small slices with the event
 * loop free between them (in a real session the host is mostly waiting for
 * the provider then), until nothing is pending, then brings the store's
 * ranking aids (impact lists) up to the index the same way. A search indexes
 * what is left before it runs, so results never depend on how far this got.
 */
export class IndexDrain {
  #running: Promise<void> | null = null;

  constructor(
    private readonly logger: Logger,
    private readonly isClosed: () => boolean,
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
        await yieldToEvents();
        if (this.isClosed()) return;
        const { remaining } = await store.indexPending({ maxMs: SLICE_MS });
        if (remaining > 0) continue;
        // Then the ranking aids that follow the index (impact lists of large conversations), in the same slices.
        const search = await store.searchStore();
        if (!search.catchUpLists || (await search.catchUpLists({ maxMs: SLICE_MS }))) return;
      }
    } catch (error) {
      if (!this.isClosed()) this.logger.warn("lcm: background full-text indexing stopped", { error: describeErrorWithCauses(error) });
    }
  }
}
