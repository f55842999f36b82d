import type { Pool, PoolClient } from "pg";
import { errorWrapper, PostgresStoreError, type ErrorWrapper } from "./errors.js";
import { guardPool } from "./guard.js";
import { parsePostgresOptions, type PostgresStoreOptions, type ResolvedPostgresOptions } from "./options.js";
import { describeConnection, withDefaultUser } from "./url.js";

export interface PostgresConnection {
  readonly pool: Pool;
  readonly options: ResolvedPostgresOptions;
  /** The server as it may be shown (`postgres://user@host:port/db`, never the password). */
  readonly description: string;
  /** Turns an error from `pg` into a PostgresStoreError (clear words, no password). */
  readonly wrapError: ErrorWrapper;
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
  const wrapError = errorWrapper(options);
  let pg: { Pool: typeof Pool };
  try {
    const mod = await import("pg");
    pg = mod.default ?? mod;
  } catch (error) {
    throw new Error(`the PostgreSQL LCM store needs the "pg" package (npm install pg): ${error instanceof Error ? error.message : String(error)}`);
  }
  const pool = new pg.Pool({
    connectionString: withDefaultUser(options.url),
    max: options.poolSize,
    // Every statement runs in the LCM schema; the schema name is validated as a plain identifier.
    options: `-c search_path=${options.schema},public`,
    application_name: options.applicationName,
    // Bounds set per session by the server (0 is not sent: the server's setting stays).
    lock_timeout: options.lockTimeoutMs,
    statement_timeout: options.statementTimeoutMs,
    idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs,
    connectionTimeoutMillis: options.connectTimeoutMs,
    // A peer that vanished without a reset is noticed instead of waited on for ever.
    keepAlive: true,
  });
  // A connection that drops (idle or checked out) must not crash the process; the next query gets a fresh one.
  guardPool(pool, wrapError);
  return {
    pool,
    options,
    description: describeConnection(options.url),
    wrapError,
    async transaction(fn) {
      const client = await pool.connect();
      let broken = false;
      try {
        await client.query("BEGIN");
        const out = await fn(client);
        await client.query("COMMIT");
        return out;
      } catch (error) {
        // A failed ROLLBACK means the session is gone (the server rolls back for us): drop the client.
        await client.query("ROLLBACK").catch(() => {
          broken = true;
        });
        if (error instanceof PostgresStoreError && error.kind === "connection") broken = true;
        throw error;
      } finally {
        client.release(broken);
      }
    },
    async close() {
      await pool.end();
    },
  };
}
