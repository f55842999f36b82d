import { hash as oneShotHash } from "node:crypto";
import type { Message } from "@context-engine/core";
import type { EncodedMessage } from "./codec.js";
import { HashMemo } from "./hash-memo.js";
import type { IngestOptions } from "./types.js";

/** How the plan encodes inputs (with the driver's redactor). */
export interface IngestEncoder {
  /** Encode one input (redaction, identity hash); throws when it cannot be stored. */
  encode(message: Message, index: number): EncodedMessage;
  /** Identity hashes of messages fingerprinted before (the driver's, shared by its ingests). */
  memo?: HashMemo;
}

const UNSEEN = 0;
const SYNTHETIC = 1;
const REJECTED = 2;
const REAL = 3;

/**
 * The inputs of one ingest, classified and encoded lazily: a writer whose
 * position holds only encodes what follows it, so a turn costs O(new
 * messages), not O(transcript). What was looked at is kept in maps, not
 * arrays the length of the list, for the same reason.
 */
export class IngestInputs {
  readonly messages: readonly Message[];
  readonly #isSynthetic: IngestOptions["isSynthetic"];
  readonly #encoder: IngestEncoder;
  readonly #kind = new Map<number, number>();
  readonly #encoded = new Map<number, EncodedMessage | null>();
  readonly rejected: Array<{ index: number; reason: string }> = [];
  synthetic = 0;

  constructor(messages: readonly Message[], isSynthetic: IngestOptions["isSynthetic"], encoder: IngestEncoder) {
    this.messages = messages;
    this.#isSynthetic = isSynthetic;
    this.#encoder = encoder;
  }

  get length(): number {
    return this.messages.length;
  }

  #classify(i: number): number {
    let k = this.#kind.get(i) ?? UNSEEN;
    if (k !== UNSEEN) return k;
    const m = this.messages[i];
    if (m === null || typeof m !== "object" || Array.isArray(m)) {
      k = REJECTED;
      this.rejected.push({ index: i, reason: "not a message object" });
    } else if (this.#isSynthetic?.(m, i)) {
      k = SYNTHETIC;
      this.synthetic++;
    } else k = REAL;
    this.#kind.set(i, k);
    return k;
  }

  /** The same, without recording it (a count over a long backlog keeps no per-input state). */
  wouldStore(i: number): boolean {
    const k = this.#kind.get(i);
    if (k !== undefined) return k === REAL;
    const m = this.messages[i];
    return m !== null && typeof m === "object" && !Array.isArray(m) && !this.#isSynthetic?.(m, i);
  }

  /** Whether input i is a message to store (an object the engine did not produce), without encoding it. */
  isReal(i: number): boolean {
    return this.#classify(i) === REAL;
  }

  /** Input i encoded, or null when it is synthetic or cannot be stored (then it is listed in `rejected`). */
  encoded(i: number): EncodedMessage | null {
    const cached = this.#encoded.get(i);
    if (cached !== undefined) return cached;
    let e: EncodedMessage | null = null;
    if (this.#classify(i) === REAL) {
      try {
        e = this.#encoder.encode(this.messages[i]!, i);
      } catch (error) {
        this.#kind.set(i, REJECTED);
        this.rejected.push({ index: i, reason: (error as Error).message });
      }
    }
    this.#encoded.set(i, e);
    return e;
  }

  /**
   * What a writer position remembers of input i: its identity hash when it is
   * a message to store, else a hash of its JSON (a rendered summary, a
   * rejected input), so any change to it is noticed.
   */
  fingerprint(i: number): string {
    const memo = this.#encoder.memo;
    const key = memo && this.#classify(i) === REAL ? HashMemo.keyOf(this.messages[i]) : null;
    const known = key === null || this.#encoded.has(i) ? undefined : memo!.get(key);
    if (known !== undefined) return known;
    const e = this.encoded(i);
    if (e && key !== null) memo!.set(key, e.hashHex);
    if (e) return e.hashHex;
    let json: string;
    try {
      json = JSON.stringify(this.messages[i]) ?? "undefined";
    } catch {
      json = String(this.messages[i]);
    }
    return `x${oneShotHash("sha256", json, "hex").slice(0, 16)}`;
  }

  /**
   * A writer position's fingerprint at input i: input i, the one before it
   * and the first, so a list that only happens to hold an equal message at
   * the same place (a repeated "continue" after a host rewrite) does not pass.
   */
  positionFingerprint(i: number): string {
    const parts = [this.fingerprint(i)];
    if (i > 0) parts.push(this.fingerprint(i - 1));
    if (i > 1) parts.push(this.fingerprint(0));
    return parts.join(":");
  }

  /** Encode inputs [from, to); the indexes of those to store. */
  encodeRange(from: number, to = this.length): number[] {
    const out: number[] = [];
    for (let i = from; i < to; i++) if (this.encoded(i)) out.push(i);
    return out;
  }
}
