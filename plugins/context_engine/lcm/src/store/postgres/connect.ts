import type { Pool, PoolClient } from "pg";
import { parsePostgresOptions, type PostgresStoreOptions, type ResolvedPostgresOptions } from "./options.js";

export interface PostgresConnection {
  readonly pool: Pool;
  readonly options: ResolvedPostgresOptions;
  /** Run `fn` in one transaction on one connection (rolled back when it throws). */
  transaction<T>(fn: (client: PoolClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * Open a pool on the LCM schema. `pg` is loaded here, on first use, so a
 * SQLite-only install never loads it (it is an optional peer dependency).
 */
export async function connectPostgres(raw: PostgresStoreOptions): Promise<PostgresConnection> {
  const options = parsePostgresOptions(raw);
  let pg: { Pool: typeof Pool };
  try {
    const mod = await import("pg");
    pg = mod.default ?? mod;
  } catch (error) {
    throw new Error(`the PostgreSQL LCM store needs the "pg" package (npm install pg): ${error instanceof Error ? error.message : String(error)}`);
  }
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    // Every statement runs in the LCM schema; the schema name is validated as a plain identifier.
    options: `-c search_path=${options.schema},public`,
  });
  // An idle connection that drops must not crash the process; the next query gets a fresh one.
  pool.on("error", () => {});
  return {
    pool,
    options,
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const out = await fn(client);
        await client.query("COMMIT");
        return out;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    async close() {
      await pool.end();
    },
  };
}
