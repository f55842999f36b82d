import { z } from "zod";

/** A schema name used unquoted in SQL: lower-case identifier, at most 63 bytes (PostgreSQL's limit). */
export const SchemaNameSchema = z
  .string()
  .regex(/^[a-z_][a-z0-9_]{0,62}$/, "a lower-case identifier (letters, digits, _; at most 63 characters)");

export const PostgresStoreOptionsSchema = z.strictObject({
  /** `postgres://user@host:port/database` (or `postgresql://`). */
  url: z.string().regex(/^postgres(ql)?:\/\//, "a postgres:// or postgresql:// URL"),
  /** Connections this process keeps open (default 4). */
  poolSize: z.number().int().min(1).max(100).default(4),
  /** Schema holding the LCM tables (created if missing; default `lcm`). */
  schema: SchemaNameSchema.default("lcm"),
});

export type PostgresStoreOptions = z.input<typeof PostgresStoreOptionsSchema>;
export type ResolvedPostgresOptions = z.output<typeof PostgresStoreOptionsSchema>;

/** Validate driver options, naming the field and the expectation on error. */
export function parsePostgresOptions(raw: unknown, source = "postgres store"): ResolvedPostgresOptions {
  const parsed = PostgresStoreOptionsSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const detail = parsed.error.issues.map((i) => `${source}.${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
  throw new Error(`invalid PostgreSQL store options: ${detail}`);
}
