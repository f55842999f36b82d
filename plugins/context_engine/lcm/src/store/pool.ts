import { resolve } from "node:path";
import { openLcmStore, resolveStorePath } from "./sqlite/store.js";
import type { LcmStore, OpenStoreOptions } from "./types.js";

/**
 * One SQLite handle per database file, shared by every engine instance of
 * the process (hosts build one engine per session). Each instance holds a
 * lease; the handle closes when the last lease is released. The pool is the
 * one deliberately shared piece of state of this package: everything
 * per-session lives on the engine instance.
 */
export interface StoreLease {
  readonly store: LcmStore;
  /**
   * Register what this holder must keep alive (its live session ids);
   * retention run by any holder protects the sessions of all of them.
   */
  protect(provider: () => Iterable<string>): void;
  /** Session ids live in any holder of this handle. */
  protectedSessions(): string[];
  /** Give the lease back; idempotent. The last release closes the handle. */
  release(): void;
}

interface Entry {
  store: LcmStore;
  refs: number;
  providers: Set<() => Iterable<string>>;
}

const entries = new Map<string, Entry>();

/** Pool key: the resolved file and the redaction settings (a different redactor needs its own handle). */
function keyOf(options: OpenStoreOptions): string | null {
  const path = resolveStorePath(options);
  if (path === ":memory:") return null; // every in-memory store is its own database
  return `${resolve(path)}\u0000${JSON.stringify(options.redaction ?? null)}`;
}

/** Take a lease on the store for `options`, opening it when no holder has it open yet. */
export function acquireStore(options: OpenStoreOptions): StoreLease {
  const key = keyOf(options);
  let entry = key === null ? undefined : entries.get(key);
  if (!entry || !isOpen(entry.store)) {
    entry = { store: openLcmStore(options), refs: 0, providers: new Set() };
    if (key !== null) entries.set(key, entry);
  }
  const held = entry;
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
    release() {
      if (released) return;
      released = true;
      if (provider) held.providers.delete(provider);
      held.refs--;
      if (held.refs > 0) return;
      if (key !== null && entries.get(key) === held) entries.delete(key);
      held.store.close();
    },
  };
}

/** Open handles in the pool (for tests and status). */
export function pooledStoreCount(): number {
  return entries.size;
}

function isOpen(store: LcmStore): boolean {
  return store.isOpen;
}
