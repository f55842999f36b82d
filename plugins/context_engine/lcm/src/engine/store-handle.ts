import { describeErrorWithCauses } from "@context-engine/core";
import type { Logger } from "@context-engine/core";
import { acquireDriver, acquireStore } from "../store/pool.js";
import type { StoreLease } from "../store/pool.js";
import type { LcmStoreDriver, StoreStats } from "../store/types.js";
import { connectionSecrets, scrubConnectionSecrets } from "../store/postgres/url.js";
import type { ResolvedStore, StoreDescription } from "./store-spec.js";

/** The engine's store cannot be opened: the message says what is wrong and what to do. */
export class LcmStoreUnavailableError extends Error {
  override name = "LcmStoreUnavailableError";
}

/** The database figures `getStatus` shows. */
export type DatabaseFigures = Pick<StoreStats, "path" | "fileBytes" | "conversations" | "messages" | "summaries">;

/** After a failed open, the next hook tries again no sooner than this. */
const RETRY_AFTER_MS = 5_000;
/** Database figures for getStatus are read at most this often (their counts read whole tables). */
const STATS_EVERY_MS = 1_000;

/**
 * The engine's lease on its store: opened on first use (constructing an
 * engine writes nothing), shared with other instances on the same database,
 * reported once when it cannot be opened and retried on a later call, and
 * the source of the database figures `getStatus` shows without a store call.
 */
export class StoreHandle {
  readonly description: StoreDescription;
  #lease: StoreLease<LcmStoreDriver> | null = null;
  #opening: Promise<LcmStoreDriver> | null = null;
  #failure: { error: LcmStoreUnavailableError; at: number } | null = null;
  #reported = false;
  #closed = false;
  #stats: DatabaseFigures | null = null;

  constructor(
    private readonly resolved: ResolvedStore,
    private readonly logger: Logger,
    private readonly protect: () => Iterable<string>,
  ) {
    this.description = resolved.description;
  }

  /** The open driver, or null before the first successful open. */
  get current(): LcmStoreDriver | null {
    return this.#lease?.store ?? null;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The last failure to open, if the store is not open. */
  get failure(): LcmStoreUnavailableError | null {
    return this.#lease ? null : (this.#failure?.error ?? null);
  }

  /**
   * A SQLite store opened synchronously (its driver is synchronous): for
   * callers that read `engine.store` before any hook ran. Null for PostgreSQL
   * (open it with `open()`), or when it cannot be opened.
   */
  openSync(): LcmStoreDriver | null {
    if (this.#lease) return this.#lease.store;
    const spec = this.resolved.spec;
    if (this.#closed || spec.kind !== "sqlite") return null;
    try {
      const { kind: _kind, ...options } = spec;
      const lease = acquireStore(options) as StoreLease<LcmStoreDriver>;
      lease.protect(this.protect);
      this.#lease = lease;
      return lease.store;
    } catch (error) {
      throw new LcmStoreUnavailableError(this.#explain(error));
    }
  }

  /** The store, opening it on first use. Rejects with `LcmStoreUnavailableError` (reported once) when it cannot be opened. */
  open(): Promise<LcmStoreDriver> {
    if (this.#closed) return Promise.reject(new LcmStoreUnavailableError("LCM engine is closed"));
    if (this.#lease) return Promise.resolve(this.#lease.store);
    if (this.#failure && Date.now() - this.#failure.at < RETRY_AFTER_MS) return Promise.reject(this.#failure.error);
    this.#opening ??= this.#open().finally(() => {
      this.#opening = null;
    });
    return this.#opening;
  }

  async #open(): Promise<LcmStoreDriver> {
    try {
      const lease = await acquireDriver(this.resolved.spec);
      if (this.#closed) {
        void lease.release();
        throw new LcmStoreUnavailableError("LCM engine is closed");
      }
      lease.protect(this.protect);
      this.#lease = lease;
      if (this.#reported) this.logger.info("lcm: the store is available again", { store: this.description.location });
      this.#failure = null;
      this.#reported = false;
      void this.refreshStats();
      return lease.store;
    } catch (error) {
      const failure = error instanceof LcmStoreUnavailableError ? error : new LcmStoreUnavailableError(this.#explain(error));
      this.#failure = { error: failure, at: Date.now() };
      if (!this.#reported) {
        this.#reported = true;
        this.logger.error(`lcm: cannot open the store: ${failure.message}`, { store: this.description.location });
      }
      throw failure;
    }
  }

  /** Plain words for the usual causes, with the fix; never the URL's password. */
  #explain(error: unknown): string {
    const url = this.resolved.spec.kind === "postgres" ? this.resolved.spec.postgres.url : undefined;
    const raw = url ? scrubConnectionSecrets(describeErrorWithCauses(error), connectionSecrets(url)) : describeErrorWithCauses(error);
    const where = this.description.kind === "postgres" ? `PostgreSQL at ${this.description.location} (schema ${this.description.schema})` : `SQLite file ${this.description.location}`;
    if (/did not self-register|NODE_MODULE_VERSION|was compiled against a different Node/i.test(raw)) {
      return `${where}: the native module better-sqlite3 was built for another Node.js version (${raw.split("\n")[0]}). Rebuild it for this Node: npm rebuild better-sqlite3`;
    }
    // An option the driver refused is the user's setting, not the network: say so by its own words.
    if (error instanceof Error && error.name === "PostgresOptionsError") return `${where}: ${raw}`;
    if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|timeout/i.test(raw)) return `${where}: the server cannot be reached (${raw}). Check that it is running and the URL is right.`;
    if (/database .* does not exist/i.test(raw)) return `${where}: ${raw}. Create the database or fix the URL.`;
    if (/password authentication failed|no pg_hba|role .* does not exist/i.test(raw)) return `${where}: the server refused the login (${raw}). Check the user and password.`;
    if (/needs the "pg" package/i.test(raw)) return `${where}: ${raw}`;
    return `${where}: ${raw}`;
  }

  /** Database figures for `getStatus` (refreshed off the turn path). */
  get stats(): DatabaseFigures | null {
    return this.#stats;
  }

  #lastRefresh = 0;
  #refreshTimer: NodeJS.Timeout | null = null;

  /**
   * A refresh off the caller's path (its counts read whole tables), at most once a second; a call
   * inside the second gets one refresh at its end, so the figures catch up with the last change.
   */
  scheduleStatsRefresh(): void {
    if (this.#refreshTimer || this.#closed) return;
    const wait = Math.max(0, this.#lastRefresh + STATS_EVERY_MS - Date.now());
    this.#refreshTimer = setTimeout(() => {
      this.#refreshTimer = null;
      this.#lastRefresh = Date.now();
      void this.refreshStats();
    }, wait);
    this.#refreshTimer.unref();
  }

  async refreshStats(): Promise<void> {
    const store = this.current;
    if (!store) return;
    try {
      const s = await store.stats();
      this.#stats = { path: s.path, fileBytes: s.fileBytes, conversations: s.conversations, messages: s.messages, summaries: s.summaries };
    } catch {
      // figures only: the next refresh tries again
    }
  }

  protectedSessions(): string[] {
    return this.#lease?.protectedSessions() ?? [...this.protect()];
  }

  /** Give the lease back (the handle closes with its last holder). */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#refreshTimer) clearTimeout(this.#refreshTimer);
    this.#refreshTimer = null;
    const lease = this.#lease;
    this.#lease = null;
    await this.#opening?.catch(() => undefined);
    await lease?.release();
  }
}
