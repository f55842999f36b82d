/**
 * What the published types say about a better-sqlite3 database: only what
 * `pinNativeObjects` reads and replaces, structurally. `@types/better-sqlite3`
 * is a dev dependency, so no declaration this package publishes may import it
 * (consumers with `skipLibCheck: false` would get TS7016).
 */
export interface PinnableDatabase {
  prepare(source: string): unknown;
  exec(source: string): unknown;
  pragma(source: string, options?: { simple?: boolean }): unknown;
}

/** `pinNativeObjects` as published: the database given comes back, with its own type. */
export type PinNativeObjects = <D extends PinnableDatabase>(db: D) => D;
