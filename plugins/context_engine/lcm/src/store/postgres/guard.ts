import type { Pool, PoolClient } from "pg";
import type { ErrorWrapper } from "./errors.js";

const GUARDED = Symbol("lcm.guarded");

/**
 * Make a pool safe against the server going away and against leaking its URL:
 * - every client gets a permanent `error` listener when it is created, so a
 *   connection ended while checked out (`pg_terminate_backend`, a restart, a
 *   reset) fails the call in flight instead of crashing the process with an
 *   unhandled `error` event; the pool drops the dead client and opens a new one
 *   on the next call;
 * - every promise from `pool.query`, `pool.connect` and a client's `query`
 *   rejects with the wrapped error (clear words, no password).
 * `onFault` hears errors that reach no caller (an idle or checked-out client's socket).
 */
export function guardPool(pool: Pool, wrap: ErrorWrapper, onFault: (error: unknown) => void = () => {}): void {
  pool.on("error", (error) => onFault(wrap(error)));
  pool.on("connect", (client) => {
    client.on("error", (error) => onFault(wrap(error)));
    guardQuery(client, wrap);
  });
  guardQuery(pool, wrap);
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { connect: unknown }).connect = (...args: unknown[]) => rewrapRejection(connect(...args), wrap);
}

function guardQuery(target: Pool | PoolClient, wrap: ErrorWrapper): void {
  const marked = target as unknown as Record<symbol, boolean>;
  if (marked[GUARDED]) return;
  marked[GUARDED] = true;
  const query = target.query.bind(target) as (...args: unknown[]) => unknown;
  // Callback and submittable forms (the pool's own use) pass through untouched.
  (target as unknown as { query: unknown }).query = (...args: unknown[]) => rewrapRejection(query(...args), wrap);
}

function rewrapRejection(out: unknown, wrap: ErrorWrapper): unknown {
  if (!isThenable(out)) return out;
  return Promise.resolve(out).catch((error: unknown) => Promise.reject(wrap(error)));
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === "object" && typeof (value as { then?: unknown }).then === "function";
}
