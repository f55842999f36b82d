import type { Role } from "@context-engine/core";

/** A message or summary that can carry a vector. `id`: the message id, or the summary's row id (as search candidates use). */
export interface VectorItem {
  kind: "message" | "summary";
  id: number;
  conversationId: number;
  /** Message time, or a summary's latest source time. */
  createdAt: number;
  /** Message time, or a summary's earliest source time (the `before` filter, as lexical search reads it). */
  startedAt: number;
  role: Role | null;
}

/** A vector to store; an empty vector marks an item with nothing to embed (it is not asked for again). */
export interface StoredVector extends VectorItem {
  vector: Float32Array;
}

export interface VectorMatch {
  kind: "message" | "summary";
  id: number;
  conversationId: number;
  createdAt: number;
  /** Cosine similarity, -1..1, higher is closer. */
  similarity: number;
}

export interface VectorFilter {
  conversationId: number | null;
  kinds: ReadonlyArray<"message" | "summary">;
  roles?: readonly Role[] | null;
  since?: number;
  before?: number;
}

/**
 * Vectors stored beside the history, in a table of their own (one row per item and model).
 * Deleting a conversation deletes its vectors (a foreign key with ON DELETE CASCADE), so
 * retention and hard delete need no step of their own.
 */
export interface VectorIndex {
  /** How nearest neighbours are found: "sqlite-vec", "exact scan (float32 blobs)", "pgvector", "exact scan (PostgreSQL bytea)". */
  readonly method: string;
  /** Why a faster method is not used (e.g. PostgreSQL without pgvector), for the status and one log line; null when none. */
  readonly notice?: string | null;
  /** Create the table when missing (a step of its own, outside the store's numbered migrations). */
  prepare(): Promise<void>;
  /** Delete vectors of every other model; returns how many. */
  dropOtherModels(model: string): Promise<number>;
  /** Items with no vector for `model`, oldest first, with ids above the given watermarks. */
  pending(model: string, after: { message: number; summary: number }, limit: number): Promise<VectorItem[]>;
  put(model: string, rows: readonly StoredVector[]): Promise<void>;
  /** The `k` stored vectors nearest to `query` (same model and size), best first. */
  nearest(model: string, query: Float32Array, filter: VectorFilter, k: number): Promise<VectorMatch[]>;
  /** Items embedded for `model` (empty markers included). */
  count(model: string): Promise<number>;
}

export function toBlob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

export function fromBlob(b: Uint8Array): Float32Array {
  // A copy: the driver's buffer may not be 4-byte aligned.
  const copy = new Uint8Array(b.byteLength);
  copy.set(b);
  return new Float32Array(copy.buffer, 0, Math.floor(b.byteLength / 4));
}

export function norm(v: Float32Array): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  return Math.sqrt(s);
}

/** Cosine similarity of `a` with `b`, given |a|; 0 for a zero vector. */
export function cosine(a: Float32Array, aNorm: number, b: Float32Array): number {
  let dot = 0;
  let bb = 0;
  for (let i = 0; i < b.length; i++) {
    dot += a[i]! * b[i]!;
    bb += b[i]! * b[i]!;
  }
  const d = aNorm * Math.sqrt(bb);
  return d > 0 ? dot / d : 0;
}

/** Keeps the `k` best of a stream of matches. */
export class TopK {
  readonly #items: VectorMatch[] = [];
  constructor(readonly k: number) {}
  offer(m: VectorMatch): void {
    const items = this.#items;
    if (items.length >= this.k && m.similarity <= items[items.length - 1]!.similarity) return;
    let i = items.length;
    while (i > 0 && items[i - 1]!.similarity < m.similarity) i--;
    items.splice(i, 0, m);
    if (items.length > this.k) items.pop();
  }
  get sorted(): VectorMatch[] {
    return this.#items;
  }
}
