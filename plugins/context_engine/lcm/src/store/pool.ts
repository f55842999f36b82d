import { resolve } from "node:path";
import { openLcmStore, resolveStorePath } from "./sqlite/store.js";
import type { PostgresStoreOptions } from "./postgres/options.js";
import type { LcmStore, LcmStoreDriver, OpenStoreOptions } from "./types.js";

/**
 * One store handle per database (a SQLite file, or a PostgreSQL schema at a
 * URL), shared by every engine instance of the process (hosts build one
 * engine per session). Each instance holds a lease; the handle closes when the
 * last lease is released. The pool is the one deliberately shared piece of
 * state of this package: everything per-session lives on the engine instance.
 */
export interface StoreLease<S = LcmStore> {
  readonly store: S;
  /**
   * Register what this holder must keep alive (its live session ids);
   * retention run by any holder protects the sessions of all of them.
   */
  protect(provider: () => Iterable<string>): void;
  /** Session ids live in any holder of this handle. */
  protectedSessions(): string[];
  /** Give the lease back; idempotent. The last release closes the handle (settles once it is closed). */
  release(): Promise<void>;
}

/** Where a driver lease points: a SQLite file or a PostgreSQL schema. */
export type DriverSpec =
  | ({ kind: "sqlite" } & OpenStoreOptions)
  | { kind: "postgres"; postgres: PostgresStoreOptions; redaction?: OpenStoreOptions["redaction"] };

interface Entry<S> {
  store: S;
  refs: number;
  providers: Set<() => Iterable<string>>;
  close(): void | Promise<void>;
  isOpen(): boolean;
}

const sqliteEntries = new Map<string, Entry<LcmStore>>();
const driverEntries = new Map<string, Promise<Entry<LcmStoreDriver>>>();

/** Pool key: the resolved file and the redaction settings (a different redactor needs its own handle). */
function sqliteKey(options: OpenStoreOptions): string | null {
  const path = resolveStorePath(options);
  if (path === ":memory:") return null; // every in-memory store is its own database
  return `${resolve(path)}\u0000${JSON.stringify(options.redaction ?? null)}`;
}

function lease<S>(held: Entry<S>, onLast: () => void): StoreLease<S> {
  held.refs++;
  let provider: (() => Iterable<string>) | null = null;
  let released = false;
  return {
    store: held.store,
    protect(next) {
      if (provider) held.providers.delete(provider);
      provider = next;
      held.providers.add(next);
    },
    protectedSessions() {
      const out = new Set<string>();
      for (const p of held.providers) for (const id of p()) out.add(id);
      return [...out];
    },
    async release() {
      if (released) return;
      released = true;
      if (provider) held.providers.delete(provider);
      held.refs--;
      if (held.refs > 0) return;
      onLast();
      await Promise.resolve(held.close()).catch(() => undefined);
    },
  };
}

/** Take a lease on the SQLite store for `options`, opening it when no holder has it open yet (synchronous). */
export function acquireStore(options: OpenStoreOptions): StoreLease {
  const key = sqliteKey(options);
  let entry = key === null ? undefined : sqliteEntries.get(key);
  if (!entry || !entry.isOpen()) {
    const store = openLcmStore(options);
    entry = { store, refs: 0, providers: new Set(), close: () => store.close(), isOpen: () => store.isOpen };
    if (key !== null) sqliteEntries.set(key, entry);
  }
  const held = entry;
  return lease(held, () => {
    if (key !== null && sqliteEntries.get(key) === held) sqliteEntries.delete(key);
  });
}

/**
 * Take a lease on the store `spec` names, as the driver interface every
 * engine path calls: SQLite (shared with `acquireStore` holders of the same
 * file) or PostgreSQL (one connection pool per URL, schema and pool size,
 * connected and migrated on first use). Rejects when the store cannot be
 * opened; a failed open is not kept, so the next call tries again.
 */
export async function acquireDriver(spec: DriverSpec): Promise<StoreLease<LcmStoreDriver>> {
  if (spec.kind === "sqlite") {
    const { kind: _kind, ...options } = spec;
    return acquireStore(options) as StoreLease<LcmStoreDriver>;
  }
  const key = `${spec.postgres.url}\u0000${spec.postgres.schema ?? "lcm"}\u0000${spec.postgres.poolSize ?? ""}\u0000${JSON.stringify(spec.redaction ?? null)}`;
  let pending = driverEntries.get(key);
  if (pending) {
    const entry = await pending.catch(() => null);
    if (!entry || !entry.isOpen()) {
      if (driverEntries.get(key) === pending) driverEntries.delete(key);
      pending = undefined;
    }
  }
  if (!pending) {
    pending = openPostgresEntry(spec);
    driverEntries.set(key, pending);
    pending.catch(() => {
      if (driverEntries.get(key) === pending) driverEntries.delete(key);
    });
  }
  const held = await pending;
  const opened = pending;
  return lease(held, () => {
    if (driverEntries.get(key) === opened) driverEntries.delete(key);
  });
}

async function openPostgresEntry(spec: Extract<DriverSpec, { kind: "postgres" }>): Promise<Entry<LcmStoreDriver>> {
  // Loaded on first use: a SQLite-only install never loads the driver or `pg`.
  const { openPostgresStore } = await import("./open.js");
  const store = await openPostgresStore(spec.postgres, spec.redaction === undefined ? {} : { redaction: spec.redaction });
  return { store, refs: 0, providers: new Set(), close: () => store.close(), isOpen: () => store.isOpen };
}

/** Open handles in the pool (for tests and status). */
export function pooledStoreCount(): number {
  return sqliteEntries.size + driverEntries.size;
}
