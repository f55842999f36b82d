import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { expandPath, resolveHome, type LoadedConfig } from "@context-engine/plugin-loader";
import { InputError, UsageError } from "../errors.js";

/**
 * Where an LCM store lives: a SQLite file, or a PostgreSQL database (URL without its password for
 * display) and the schema config.yaml names for it (`engines.lcm.schema`; absent: the store's default).
 */
export type StoreTarget = { kind: "sqlite"; path: string; shown: string } | { kind: "postgres"; url: string; shown: string; schema?: string };

const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;
const POSTGRES = /^postgres(ql)?:\/\//i;

/** `postgres://user@host:port/db`: a URL as it may be printed (never its password or query). */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    const user = u.username ? `${decodeURIComponent(u.username)}@` : "";
    return `${u.protocol}//${user}${u.host}${u.pathname === "/" ? "" : u.pathname}`;
  } catch {
    // Not parseable: drop anything between "//" and "@" that could hold a password.
    return url.replace(/\/\/[^/@]*@/, "//…@").replace(/\?.*$/, "");
  }
}

/** The one default LCM SQLite file: `$CONTEXT_ENGINE_HOME/data/lcm/lcm.sqlite` (where chat keeps it). */
export function defaultLcmStorePath(cwd: string, env: Record<string, string | undefined>): string {
  return join(resolveHome({ env, cwd }), "data", "lcm", "lcm.sqlite");
}

/**
 * The store a command means, as the engine itself would open it: `--store`, else `engines.lcm.store`
 * (or the variable `engines.lcm.store_env` names, or `engines.lcm.database_path`) from config.yaml,
 * else the default file; for PostgreSQL also config.yaml's `engines.lcm.schema` unless `--store` is
 * given. A URL must be postgres:// (or postgresql://): any other scheme is refused instead of becoming
 * a local folder named after it.
 */
export function resolveStoreTarget(flag: string | undefined, options: { cwd: string; env: Record<string, string | undefined>; loaded?: LoadedConfig }): StoreTarget {
  const section = (options.loaded?.config.engines?.lcm ?? {}) as { store?: unknown; store_env?: unknown; database_path?: unknown; schema?: unknown };
  const fromEnv = typeof section.store_env === "string" ? options.env[section.store_env] : undefined;
  if (flag === undefined && typeof section.store_env === "string" && !fromEnv) {
    throw new UsageError(`engines.lcm.store_env in config.yaml names ${section.store_env}, which is not set`, {
      hints: [`Set ${section.store_env} to the store (a SQLite file or a postgres:// URL), or name it with --store.`],
    });
  }
  const configured = [section.store, fromEnv, section.database_path].find((v): v is string => typeof v === "string" && v.length > 0);
  const raw = flag ?? configured;
  const where = flag !== undefined ? "--store" : "engines.lcm in config.yaml";
  if (raw === undefined) {
    const path = defaultLcmStorePath(options.cwd, options.env);
    return { kind: "sqlite", path, shown: path };
  }
  if (POSTGRES.test(raw)) {
    const schema = flag === undefined && typeof section.schema === "string" ? section.schema : undefined;
    return { kind: "postgres", url: raw, shown: displayUrl(raw), ...(schema ? { schema } : {}) };
  }
  if (URL_LIKE.test(raw)) {
    throw new UsageError(`${where}: ${displayUrl(raw)} is not a supported LCM store`, {
      hints: ["An LCM store is a SQLite file path or a postgres:// (postgresql://) URL; no other database is supported."],
    });
  }
  const base = flag !== undefined ? options.cwd : (options.loaded?.baseDir ?? options.cwd);
  const path = flag !== undefined ? resolve(options.cwd, raw) : expandPath(raw, base);
  return { kind: "sqlite", path, shown: path };
}

/** A SQLite store that must already exist (export/list read it; creating an empty one would leave a file behind). */
export function requireExistingSqlite(target: StoreTarget): void {
  if (target.kind !== "sqlite") return;
  if (!existsSync(target.path)) {
    throw new InputError(`no LCM store at ${target.path}`, {
      hints: ["Chat with the lcm engine first, or name the store with --store <file|postgres://…>."],
    });
  }
  if (!statSync(target.path).isFile()) throw new InputError(`the LCM store ${target.path} is not a file`);
}
