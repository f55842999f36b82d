import { createRequire } from "node:module";
import type Database from "better-sqlite3";

/**
 * better-sqlite3 12.x builds its Database, Statement and iterator objects on Node's raw
 * `node::ObjectWrap`. From Node 24 on, that destructor looks up the current Node environment and
 * aborts the process when there is none (`RemoveEnvironmentCleanupHook: Assertion (env) !=
 * nullptr`). There is none whenever V8 finishes a garbage collection from one of its own scheduled
 * tasks instead of from running JavaScript, so any such object left to the collector can kill the
 * host at a random moment, whether or not its database was closed.
 *
 * On those runtimes every such object this package creates is kept reachable until the process
 * exits (Node then tears them down safely). A closed database frees its SQLite memory; only the
 * small wrappers stay. Statements are cached per SQL (see statements.ts), so what grows is one
 * wrapper per database opened and per `iterate()` call.
 */
const pinned: object[] = [];

function majorOf(version: string): number {
  return Number.parseInt(version.replace(/^v/, ""), 10);
}

const bindingVersion = (createRequire(import.meta.url)("better-sqlite3/package.json") as { version: string }).version;
/** Whether objects of the loaded better-sqlite3 must never be garbage collected here. */
export const mustPinNativeObjects = majorOf(process.versions.node) >= 24 && majorOf(bindingVersion) <= 12;

function pinStatement(statement: Database.Statement): Database.Statement {
  pinned.push(statement);
  const iterate = statement.iterate;
  statement.iterate = function iteratePinned(this: Database.Statement, ...params: unknown[]) {
    const iterator = iterate.apply(this, params);
    pinned.push(iterator);
    return iterator;
  } as Database.Statement["iterate"];
  return statement;
}

/** Make `db` keep itself and everything it prepares alive for the process when the runtime needs it; returns `db`. */
export function pinNativeObjects(db: Database.Database): Database.Database {
  if (!mustPinNativeObjects) return db;
  pinned.push(db);
  const prepare = db.prepare;
  db.prepare = function preparePinned(this: Database.Database, source: string) {
    return pinStatement(prepare.call(this, source));
  } as Database.Database["prepare"];
  // The library's pragma() prepares a fresh statement per call: route it through one cached,
  // pinned statement per pragma text instead.
  const pragmas = new Map<string, Database.Statement>();
  db.pragma = function pragmaPinned(this: Database.Database, source: string, options?: Database.PragmaOptions) {
    const simple = options?.simple === true;
    const key = `${simple ? "1" : "0"}${source}`;
    let statement = pragmas.get(key);
    if (!statement) {
      statement = this.prepare(`PRAGMA ${source}`);
      if (simple && statement.reader) statement.pluck();
      pragmas.set(key, statement);
    }
    if (!statement.reader) {
      // exec steps to the end (incremental_vacuum frees one page per step) and makes no wrapper.
      this.exec(`PRAGMA ${source}`);
      return simple ? undefined : [];
    }
    return simple ? statement.get() : statement.all();
  };
  return db;
}
