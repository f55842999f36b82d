import type Database from "better-sqlite3";

// Preparing a statement costs tens of microseconds; search builds a handful of
// SQL shapes over and over, so keep them per database handle.
const caches = new WeakMap<Database.Database, Map<string, Database.Statement>>();

/** A cached prepared statement for `sql` on `db`. */
export function stmt(db: Database.Database, sql: string): Database.Statement {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  let s = cache.get(sql);
  if (!s) {
    if (cache.size > 500) cache.clear();
    s = db.prepare(sql);
    cache.set(sql, s);
  }
  return s;
}
