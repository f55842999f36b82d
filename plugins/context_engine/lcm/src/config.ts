import { z } from "zod";
import { RedactionConfigSchema } from "./redact/index.js";
import { RetentionPolicySchema } from "./retention/index.js";
import { EmbeddingsConfigSchema } from "./embeddings/config.js";
import { SchemaNameSchema, TimeoutMsSchema } from "./store/postgres/options.js";

/**
 * The `engines.lcm` section of config.yaml (snake_case keys). Every key is
 * optional; defaults are chosen so that a fresh install compacts early enough
 * to never overflow and late enough to keep the prompt cache warm.
 */
const ratio = z.number().gt(0).lte(1);
const positiveInt = z.number().int().positive();
const nonNegativeInt = z.number().int().nonnegative();

/** `scheme://` at the start of a value: a URL, not a file path. */
const URL_SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;
const POSTGRES_SCHEME = /^postgres(ql)?$/i;

const fields = {
  /**
   * Where the history lives: a SQLite file path (the default store, under the data directory) or a
   * `postgres://` URL (a store shared by many processes and machines).
   */
  store: z.string().min(1).optional(),
  /** The name of an environment variable holding the store (for URLs with secrets kept out of files). */
  store_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name").optional(),
  /** PostgreSQL only: the schema holding the LCM tables (created when missing). */
  schema: SchemaNameSchema.optional(),
  /** PostgreSQL only: connections this process keeps open (default 4). */
  pool_size: z.number().int().min(1).max(100).optional(),
  /** PostgreSQL only: how long a write waits for another writer's lock before failing clearly (0: the server's setting). */
  lock_timeout_ms: TimeoutMsSchema.optional(),
  /** PostgreSQL only: the longest one statement may run (0: the server's setting). */
  statement_timeout_ms: TimeoutMsSchema.optional(),
  /** PostgreSQL only: how long connecting may take. */
  connect_timeout_ms: TimeoutMsSchema.optional(),
  /** Older name of `store` for a SQLite file path (a URL here is refused). */
  database_path: z.string().min(1).optional(),
  /** Fraction of the context window that triggers compaction (overridden per model by `compression.model_thresholds`). */
  context_threshold: ratio.default(0.75),
  /** After a compaction the assembled context aims at this fraction of the threshold. */
  target_ratio: ratio.default(0.5),
  /** Fraction of the threshold at which summaries start being prepared in the background after a turn. */
  prepare_ratio: ratio.default(0.6),
  /** Newest raw messages that are never summarised (counted in messages). */
  fresh_tail_count: positiveInt.default(32),
  /** Token cap of that tail; default 40 % of the post-compaction target. */
  fresh_tail_max_tokens: positiveInt.optional(),
  /** Raw tokens per leaf summary input (capped at a quarter of the threshold on small windows). */
  leaf_chunk_tokens: positiveInt.default(20_000),
  /** A leaf pass needs at least this many messages unless it is forced. */
  leaf_min_messages: positiveInt.default(4),
  /** Target size of one leaf summary. */
  leaf_target_tokens: positiveInt.default(1_200),
  /** Target size of one condensed summary. */
  condensed_target_tokens: positiveInt.default(2_000),
  /** Same-depth summaries condensed into one node at the next depth. */
  condensed_fanout: z.number().int().min(2).max(32).default(4),
  /** Deepest summary level that condensation creates. */
  max_depth: z.number().int().min(1).max(12).default(6),
  /** The deterministic fallback never exceeds this size. */
  fallback_max_tokens: z.number().int().min(64).default(512),
  /** Summary passes one `compress` may run before it stops (bounded sweep). */
  max_passes: positiveInt.default(24),
  /**
   * Summaries one background run computes, and publishes at once, while the history is more than a
   * compaction behind (a long history imported or resumed): each turn's cost stays small and the
   * backlog drains over the following turns, from where the last run stopped.
   */
  backlog_passes: positiveInt.default(4),
  /**
   * Time a blocking `compress` may spend on model summaries; passes still needed after it use the
   * deterministic summary, so the turn never waits much longer (background preparation has no limit).
   */
  compress_time_budget_ms: positiveInt.default(45_000),
  /** Model for summaries; the ChatModel's own default otherwise. */
  summary_model: z.string().min(1).optional(),
  summary_temperature: z.number().min(0).max(2).default(0.2),
  /** One summariser call is given up after this long. */
  summary_timeout_ms: positiveInt.default(60_000),
  /** Model failures in a row before the summariser is skipped for `circuit_breaker_cooldown_ms`. */
  circuit_breaker_failures: positiveInt.default(3),
  circuit_breaker_cooldown_ms: positiveInt.default(300_000),
  /** Prepare summaries after a turn, off the turn path, and publish them at the next compress (or drain a frontier over the threshold); `false` turns both off. */
  prepare_in_background: z.boolean().default(true),
  /**
   * Share of one core background work may use: the scheduled drain while a frontier is over the threshold
   * with no compress asked for (an imported history), the preparation of summaries ahead of the threshold,
   * and the full-text index catch-up of an import. Each pauses after a run, a summary or a slice so that its
   * CPU time stays within it.
   */
  drain_cpu_share: ratio.default(0.5),
  /**
   * A conversation's first list longer than this (an imported or resumed history) stores at once only the
   * newest messages the assembled context can hold; the older ones are stored in the background (oldest
   * first, within drain_cpu_share), then indexed and summarised. A stop on purpose (session end, close) and,
   * on SQLite, a process exit store what is left first; a process killed before that needs a list showing
   * the history again to finish it, otherwise those messages are given up (reported). 0 stores everything
   * during the first hook (100k messages: seconds on SQLite, about a minute on PostgreSQL).
   */
  import_in_background_above: nonNegativeInt.default(1_000),
  /** A message larger than this is shown shortened in the assembled context (the original stays in the store). */
  large_message_tokens: positiveInt.default(6_000),
  /** Extra guidance appended to every summary prompt. */
  custom_instructions: z.string().default(""),
  /** Reject a model summary when more than this share of its identifiers/numbers do not occur in its sources. */
  max_unsupported_ratio: ratio.default(0.34),
  /** Secret redaction before storage and before the summariser: `true` (default), `false`, or `{ enabled, disable, extra, allow }`. */
  redaction: RedactionConfigSchema,
  /**
   * Let the tools read other conversations of the same store (lcm_grep/describe/expand `all_conversations`).
   * Off by default: the parameter is not offered, and ids of other sessions' messages and summaries are not found.
   */
  cross_conversation: z.boolean().default(false),
  /** Size/age/count policy applied when the store opens and when a session ends; nothing is deleted when unset. */
  retention: RetentionPolicySchema.optional(),
  /** An OpenAI-compatible embeddings endpoint: lcm_grep then fuses word and vector rankings (see README "Hybrid retrieval"). Off when unset. */
  embeddings: EmbeddingsConfigSchema.optional(),
};

export const configSchema = z.strictObject(fields).superRefine((c, ctx) => {
  const problem = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
  const setBy = [c.store !== undefined && "store", c.store_env !== undefined && "store_env", c.database_path !== undefined && "database_path"].filter(Boolean);
  if (setBy.length > 1) problem(String(setBy[1]), `set only one of store, store_env and database_path (got ${setBy.join(" and ")})`);
  const scheme = c.store !== undefined ? URL_SCHEME.exec(c.store)?.[1] : undefined;
  if (scheme !== undefined && !POSTGRES_SCHEME.test(scheme)) {
    problem("store", `unsupported store URL scheme "${scheme}://": use a file path (SQLite) or a postgres:// URL (PostgreSQL)`);
  }
  if (c.database_path !== undefined && URL_SCHEME.test(c.database_path)) {
    problem("database_path", "a SQLite file path, not a URL: use store: for a postgres:// URL");
  }
  const sqliteOnly = (c.store !== undefined && scheme === undefined) || c.database_path !== undefined;
  if (sqliteOnly) {
    for (const key of ["schema", "pool_size", "lock_timeout_ms", "statement_timeout_ms", "connect_timeout_ms"] as const) {
      if (c[key] !== undefined) problem(key, "applies to a PostgreSQL store only (store: postgres://…)");
    }
  }
});

export type LcmConfig = z.output<typeof configSchema>;

/** Parse `engines.lcm`, with an error that names the field and what was expected. */
export function parseConfig(raw: unknown, source = "engines.lcm"): LcmConfig {
  const parsed = configSchema.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const detail = parsed.error.issues
    .map((i) => `${source}${i.path.length ? "." + i.path.join(".") : ""}: ${i.message}`)
    .join("; ");
  throw new Error(`invalid LCM configuration: ${detail}`);
}
