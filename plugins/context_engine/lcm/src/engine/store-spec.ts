import { homedir } from "node:os";
import { join } from "node:path";
import type { LcmConfig } from "../config.js";
import { toRedactionConfig } from "../redact/index.js";
import type { DriverSpec } from "../store/pool.js";
import { describeConnection } from "../store/postgres/url.js";

/** Which store an engine uses, as shown to people (never with a password). */
export interface StoreDescription {
  kind: "sqlite" | "postgres";
  /** The SQLite file, or the PostgreSQL URL without its password. */
  location: string;
  /** PostgreSQL only. */
  schema?: string;
}

export interface ResolvedStore {
  spec: DriverSpec;
  description: StoreDescription;
}

const POSTGRES_URL = /^postgres(ql)?:\/\//i;

/**
 * The store of `engines.lcm`: `store` (a path or a postgres:// URL), the
 * variable `store_env` names, the older `database_path`, or the default
 * SQLite file under the data directory. Throws a plain-words error when
 * `store_env` names an unset variable or holds something unusable.
 */
export function resolveStore(config: LcmConfig, dataDir: string | undefined, env: NodeJS.ProcessEnv = process.env): ResolvedStore {
  const redaction = toRedactionConfig(config.redaction);
  let value = config.store ?? config.database_path;
  if (config.store_env !== undefined) {
    value = env[config.store_env]?.trim();
    if (!value) throw new Error(`engines.lcm.store_env names ${config.store_env}, which is not set: set it to a file path or a postgres:// URL`);
    const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1];
    if (scheme !== undefined && !POSTGRES_URL.test(value)) {
      throw new Error(`${config.store_env} holds a ${scheme}:// URL: the LCM store is a file path (SQLite) or a postgres:// URL`);
    }
  }
  if (value !== undefined && POSTGRES_URL.test(value)) {
    const schema = config.schema ?? "lcm";
    return {
      spec: { kind: "postgres", postgres: { url: value, schema, ...postgresTuning(config) }, redaction },
      description: { kind: "postgres", location: describeConnection(value), schema },
    };
  }
  const base = dataDir ?? join(homedir(), ".context-engine", "data", "lcm");
  const path = value ?? join(base, "lcm.sqlite");
  return { spec: { kind: "sqlite", path, redaction }, description: { kind: "sqlite", location: path } };
}

/** The PostgreSQL-only keys of `engines.lcm`, as driver options. */
function postgresTuning(c: LcmConfig) {
  return {
    ...(c.pool_size !== undefined ? { poolSize: c.pool_size } : {}),
    ...(c.lock_timeout_ms !== undefined ? { lockTimeoutMs: c.lock_timeout_ms } : {}),
    ...(c.statement_timeout_ms !== undefined ? { statementTimeoutMs: c.statement_timeout_ms } : {}),
    ...(c.connect_timeout_ms !== undefined ? { connectTimeoutMs: c.connect_timeout_ms } : {}),
  };
}
