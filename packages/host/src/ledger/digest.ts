import { hash as oneShotHash } from "node:crypto";
import type { Message } from "@context-engine/core";
import { isPinsBlock } from "./pins-block.js";

/** Stands for the pins block in digests: a pin added later must not make older entries' anchors unfindable. */
const PINS_KEY = "pins-block";

/**
 * A message's canonical form: keys sorted, `cache_control` markers and
 * undefined fields dropped (a moved cache breakpoint is not a different message).
 */
export function canonicalMessage(message: Message): string {
  return JSON.stringify(canonical(message, { sameBytes: true }));
}

/** The canonical forms of a list, and for each whether it is as long in UTF-8 as the message's own JSON. */
export interface CanonicalForms {
  texts: string[];
  /**
   * 1 where `JSON.stringify(message)` has the canonical form's byte length: sorting keys keeps the length,
   * so only a dropped `cache_control`, an own `__proto__` key or an object that is not plain data (a
   * `toJSON`, a boxed value) makes it 0. Lets the prefix figure count bytes without serialising again.
   */
  sameBytes: Uint8Array;
}

export function canonicalForms(messages: readonly Message[]): CanonicalForms {
  const texts = new Array<string>(messages.length);
  const sameBytes = new Uint8Array(messages.length);
  const walk = { sameBytes: true };
  for (let i = 0; i < messages.length; i++) {
    walk.sameBytes = true;
    texts[i] = JSON.stringify(canonical(messages[i], walk));
    sameBytes[i] = walk.sameBytes && texts[i] !== undefined ? 1 : 0;
  }
  return { texts, sameBytes };
}

function canonical(value: unknown, walk: { sameBytes: boolean }): unknown {
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) walk.sameBytes = false;
    return value.map((v) => canonical(v, walk));
  }
  if (value && typeof value === "object") {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) walk.sameBytes = false;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value as Record<string, unknown>).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (key === "cache_control" || key === "__proto__") walk.sameBytes = false;
      if (key === "cache_control" || v === undefined) continue;
      out[key] = canonical(v, walk);
    }
    return out;
  }
  return value;
}

/** A short stable digest of one message (16 hex digits), the pins block as one fixed key. */
export function messageDigest(message: Message): string {
  return digestOfCanonical(message, canonicalMessage(message));
}

/** `messageDigest` of a message whose canonical form (`canonicalMessage`) is already at hand. */
export function digestOfCanonical(message: Message, canonicalForm: string): string {
  if (isPinsBlock(message)) return PINS_KEY;
  return oneShotHash("sha256", canonicalForm, "hex").slice(0, 16);
}

/** `messageDigest` remembered by message object, for one operation that looks the same messages up many times. */
export function digestMemo(): ((message: Message) => string) & { seed(message: Message, digest: string): void } {
  const known = new WeakMap<Message, string>();
  const memo = (message: Message) => {
    let digest = known.get(message);
    if (digest === undefined) known.set(message, (digest = messageDigest(message)));
    return digest;
  };
  return Object.assign(memo, { seed: (message: Message, digest: string) => void known.set(message, digest) });
}

/**
 * Which messages of `before` are gone from `after` and which of `after` are
 * new, keeping order: the common start and end are matched first (what a
 * compaction keeps), then the longest common subsequence of the middle, so
 * equal messages (two "ok" answers) are matched to the right occurrence.
 */
export function alignLists(
  before: readonly Message[],
  after: readonly Message[],
  canonicalForms?: { before: readonly string[]; after: readonly string[] },
): { removed: number[]; inserted: number[] } {
  const a = canonicalForms?.before ?? before.map(canonicalMessage);
  const b = canonicalForms?.after ?? after.map(canonicalMessage);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const keptA = new Set<number>();
  const keptB = new Set<number>();
  if (midA.length > 0 && midB.length > 0) {
    // LCS table over the middle only (usually a few messages: the summary against what it replaced).
    const n = midA.length;
    const m = midB.length;
    const table = new Int32Array((n + 1) * (m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        table[i * (m + 1) + j] = midA[i] === midB[j] ? table[(i + 1) * (m + 1) + j + 1]! + 1 : Math.max(table[(i + 1) * (m + 1) + j]!, table[i * (m + 1) + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (midA[i] === midB[j]) {
        keptA.add(i++);
        keptB.add(j++);
      } else if (table[(i + 1) * (m + 1) + j]! >= table[i * (m + 1) + j + 1]!) i++;
      else j++;
    }
  }
  const removed = midA.flatMap((_, i) => (keptA.has(i) ? [] : [head + i]));
  const inserted = midB.flatMap((_, j) => (keptB.has(j) ? [] : [head + j]));
  return { removed, inserted };
}
