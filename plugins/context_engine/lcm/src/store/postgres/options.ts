import { z } from "zod";

/** A schema name used unquoted in SQL: lower-case identifier, at most 63 bytes (PostgreSQL's limit). */
export const SchemaNameSchema = z
  .string()
  .regex(/^[a-z_][a-z0-9_]{0,62}$/, "a lower-case identifier (letters, digits, _; at most 63 characters)");

/**
 * Bounds on waiting, in milliseconds (0 leaves the server's own setting, usually none). They keep one
 * stalled writer from blocking every other writer of a conversation for ever.
 */
export const POSTGRES_TIMEOUT_DEFAULTS = {
  /** Longest wait for a lock another session holds (`lock_timeout`): a writer left inside an open transaction. */
  lockTimeoutMs: 10_000,
  /** Longest single statement (`statement_timeout`). */
  statementTimeoutMs: 60_000,
  /** A session idle inside an open transaction this long is ended by the server (`idle_in_transaction_session_timeout`), releasing its locks. */
  idleInTransactionTimeoutMs: 60_000,
  /** Longest wait for a new connection (TCP, TLS and authentication). */
  connectTimeoutMs: 10_000,
} as const;

/** The longest timeout the driver takes (one day); a larger one is refused by name wherever it is written. */
export const MAX_POSTGRES_TIMEOUT_MS = 86_400_000;

/** A timeout option: whole milliseconds, 0 (the server's own setting) up to one day. */
export const TimeoutMsSchema = z
  .number()
  .int("whole milliseconds")
  .min(0, "0 (the server's setting) or more")
  .max(MAX_POSTGRES_TIMEOUT_MS, `at most ${MAX_POSTGRES_TIMEOUT_MS} ms (one day, the driver's maximum)`);

const Ms = (fallback: number) => TimeoutMsSchema.default(fallback);

/** Options that break a rule: a configuration error, never a connection failure. */
export class PostgresOptionsError extends Error {
  override readonly name = "PostgresOptionsError";
}

export const PostgresStoreOptionsSchema = z.strictObject({
  /** `postgres://user@host:port/database` (or `postgresql://`). Its password never appears in an error or a status. */
  url: z.string().regex(/^postgres(ql)?:\/\//, "a postgres:// or postgresql:// URL"),
  /** Connections this process keeps open (default 4). */
  poolSize: z.number().int().min(1).max(100).default(4),
  /** Schema holding the LCM tables (created if missing; default `lcm`). */
  schema: SchemaNameSchema.default("lcm"),
  lockTimeoutMs: Ms(POSTGRES_TIMEOUT_DEFAULTS.lockTimeoutMs),
  statementTimeoutMs: Ms(POSTGRES_TIMEOUT_DEFAULTS.statementTimeoutMs),
  idleInTransactionTimeoutMs: Ms(POSTGRES_TIMEOUT_DEFAULTS.idleInTransactionTimeoutMs),
  connectTimeoutMs: Ms(POSTGRES_TIMEOUT_DEFAULTS.connectTimeoutMs),
  /**
   * Create the schema and its tables when missing (default). False for a reader (listing, exporting):
   * a schema that does not exist is an error (`code: "LCM_NO_SCHEMA"`) and nothing is created.
   */
  createSchema: z.boolean().default(true),
  /** `application_name` of the store's sessions, as `pg_stat_activity` shows them. */
  applicationName: z.string().min(1).max(63).default("context-engine-lcm"),
});

export type PostgresStoreOptions = z.input<typeof PostgresStoreOptionsSchema>;
export type ResolvedPostgresOptions = z.output<typeof PostgresStoreOptionsSchema>;

/**
 * The names these options take in a configuration file (`engines.lcm.store`, snake_case), mapped to
 * the option each sets. `postgresOptionsFromConfig` applies the mapping.
 */
export const POSTGRES_CONFIG_KEYS = {
  url: "url",
  pool_size: "poolSize",
  schema: "schema",
  lock_timeout_ms: "lockTimeoutMs",
  statement_timeout_ms: "statementTimeoutMs",
  idle_in_transaction_timeout_ms: "idleInTransactionTimeoutMs",
  connect_timeout_ms: "connectTimeoutMs",
  application_name: "applicationName",
} as const satisfies Record<string, keyof ResolvedPostgresOptions>;

/** Validate driver options, naming the field and the expectation on error. */
export function parsePostgresOptions(raw: unknown, source = "postgres store"): ResolvedPostgresOptions {
  const parsed = PostgresStoreOptionsSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const detail = parsed.error.issues.map((i) => `${source}.${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
  throw new PostgresOptionsError(`invalid PostgreSQL store options: ${detail}`);
}

/**
 * Options from a configuration section written with the snake_case names of `POSTGRES_CONFIG_KEYS`;
 * an unknown key is refused by name (with `source` as its path).
 */
export function postgresOptionsFromConfig(section: unknown, source = "engines.lcm.store"): ResolvedPostgresOptions {
  if (!section || typeof section !== "object" || Array.isArray(section)) {
    throw new PostgresOptionsError(`invalid PostgreSQL store options: ${source}: expected a mapping`);
  }
  const keys: Record<string, string> = POSTGRES_CONFIG_KEYS;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(section)) {
    const option = keys[key];
    if (!option) throw new PostgresOptionsError(`invalid PostgreSQL store options: ${source}.${key}: unknown key (expected one of ${Object.keys(keys).join(", ")})`);
    out[option] = value;
  }
  // Error paths then name the option; map them back to the configuration's names.
  try {
    return parsePostgresOptions(out, source);
  } catch (error) {
    const names = Object.entries(keys);
    let message = (error as Error).message;
    for (const [config, option] of names) message = message.replaceAll(`${source}.${option}:`, `${source}.${config}:`);
    // Still an option error (never to be read as a connection failure), now in the configuration's names.
    throw new PostgresOptionsError(message);
  }
}
