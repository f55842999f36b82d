import { hash as oneShotHash } from "node:crypto";

/**
 * Identity hashes of the messages a writer's position was last fingerprinted
 * on, keyed by their raw content (memory only, never stored). Verifying a
 * position fingerprints the same few messages again on the next turn, handed
 * over as fresh copies; this spares redacting them again.
 */
export class HashMemo {
  readonly #hashes = new Map<string, string>();
  readonly #capacity: number;

  constructor(capacity = 256) {
    this.#capacity = capacity;
  }

  /** The memo key of a raw message (a digest of its JSON), or null when it has none. */
  static keyOf(message: unknown): string | null {
    try {
      const json = JSON.stringify(message);
      return json === undefined ? null : oneShotHash("sha1", json, "base64");
    } catch {
      return null;
    }
  }

  get(key: string): string | undefined {
    const hit = this.#hashes.get(key);
    if (hit !== undefined) {
      // Most recently used last, so the oldest entry is the first to go.
      this.#hashes.delete(key);
      this.#hashes.set(key, hit);
    }
    return hit;
  }

  set(key: string, hashHex: string): void {
    this.#hashes.delete(key);
    this.#hashes.set(key, hashHex);
    if (this.#hashes.size > this.#capacity) this.#hashes.delete(this.#hashes.keys().next().value!);
  }
}
