/**
 * The async shape of the store interfaces: a driver answers each call with a
 * value (SQLite, synchronous) or a promise of it (PostgreSQL), and code written
 * once for every driver awaits the answer.
 */
export type MaybePromise<T> = T | Promise<T>;
