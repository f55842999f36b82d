import type { PostgresStoreOptions } from "./postgres/options.js";
import type { LcmStoreDriver, OpenStoreOptions } from "./types.js";

/**
 * Open the PostgreSQL store (migrating its schema). The driver and `pg` are
 * loaded here, on first use, so a SQLite-only install never loads either.
 */
export async function openPostgresStore(
  options: PostgresStoreOptions,
  store: Pick<OpenStoreOptions, "redaction" | "countTokens"> = {},
): Promise<LcmStoreDriver & { close(): Promise<void> }> {
  const { PostgresLcmStore } = await import("./postgres/store.js");
  return PostgresLcmStore.open(options, store);
}
