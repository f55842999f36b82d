import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { expandPath, resolveHome, type LoadedConfig } from "@context-engine/plugin-loader";
import { InputError, UsageError } from "../errors.js";

/** Where an LCM store lives: a SQLite file, or a PostgreSQL database (URL without its password for display). */
export type StoreTarget = { kind: "sqlite"; path: string; shown: string } | { kind: "postgres"; url: string; shown: string };

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
 * The store a command means: `--store`, else `engines.lcm.store` / `engines.lcm.database_path`
 * from config.yaml, else the default file. A URL must be postgres:// (or postgresql://): any other
 * scheme is refused instead of becoming a local folder named after it.
 */
export function resolveStoreTarget(flag: string | undefined, options: { cwd: string; env: Record<string, string | undefined>; loaded?: LoadedConfig }): StoreTarget {
  const section = (options.loaded?.config.engines?.lcm ?? {}) as { store?: unknown; database_path?: unknown };
  const configured = [section.store, section.database_path].find((v): v is string => typeof v === "string" && v.length > 0);
  const raw = flag ?? configured;
  const where = flag !== undefined ? "--store" : "engines.lcm in config.yaml";
  if (raw === undefined) {
    const path = defaultLcmStorePath(options.cwd, options.env);
    return { kind: "sqlite", path, shown: path };
  }
  if (POSTGRES.test(raw)) return { kind: "postgres", url: raw, shown: displayUrl(raw) };
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
