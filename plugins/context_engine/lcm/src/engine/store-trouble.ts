import { describeErrorWithCauses } from "@context-engine/core";
import type { Logger } from "@context-engine/core";
import type { EngineMetrics } from "./parts.js";
import { LcmStoreUnavailableError } from "./store-handle.js";

/**
 * How the hooks fail open on a store failure after the store was opened (a
 * dropped connection, an I/O error): logged once per streak and counted; the
 * next call catches up from the host's list. An unopenable store is thrown to
 * the host (it reports the failure; our hooks then change nothing).
 */
export class StoreTrouble {
  #inStreak = false;

  constructor(
    private readonly logger: Logger,
    private readonly metrics: EngineMetrics,
  ) {}

  failed(hook: string, error: unknown): void {
    if (error instanceof LcmStoreUnavailableError) throw error;
    this.metrics.storeFailures++;
    if (!this.#inStreak) {
      this.#inStreak = true;
      this.logger.error(`lcm: ${hook} failed; the conversation is left unchanged`, { error: describeErrorWithCauses(error) });
    } else this.logger.debug(`lcm: ${hook} failed again`, { error: describeErrorWithCauses(error) });
  }

  ok(): void {
    if (!this.#inStreak) return;
    this.#inStreak = false;
    this.logger.info("lcm: the store answers again");
  }
}
