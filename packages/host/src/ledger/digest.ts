import { hash as oneShotHash } from "node:crypto";
import type { Message } from "@context-engine/core";
import { plainCanonicalJson, type FormWalk } from "./canonical-json.js";
import { isPinsBlock } from "./pins-block.js";

/** Stands for the pins block in digests: a pin added later must not make older entries' anchors unfindable. */
export const PINS_KEY = "pins-block";

/**
 * A message's canonical form: keys sorted, `cache_control` markers and
 * undefined fields dropped (a moved cache breakpoint is not a different message).
 */
export function canonicalMessage(message: Message): string {
  return canonicalForm(message, { sameBytes: true })!;
}

/**
 * `JSON.stringify(canonicalCopy(value, walk))`: plain data is written directly (canonical-json.ts),
 * anything else goes through the copy. Undefined where JSON.stringify gives undefined.
 */
export function canonicalForm(value: unknown, walk: FormWalk): string | undefined {
  return plainCanonicalJson(value, walk) ?? JSON.stringify(canonicalCopy(value, walk));
}

/**
 * The canonical copy of a value, for JSON.stringify; clears `walk.sameBytes` where the copy's JSON
 * may differ in length from the value's own (a dropped `cache_control`, an own `__proto__` key, an
 * object that is not plain data).
 */
export function canonicalCopy(value: unknown, walk: FormWalk): unknown {
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) walk.sameBytes = false;
    return value.map((v) => canonicalCopy(v, walk));
  }
  if (value && typeof value === "object") {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) walk.sameBytes = false;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value as Record<string, unknown>).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (key === "cache_control" || key === "__proto__") walk.sameBytes = false;
      if (key === "cache_control" || v === undefined) continue;
      out[key] = canonicalCopy(v, walk);
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
  return formHash(canonicalForm);
}

/**
 * The digest of a canonical form, whatever message it is of (16 hex digits of its SHA-256), from the
 * form or its UTF-8 bytes: the string is hashed as UTF-8, and a form is JSON.stringify output, so
 * well-formed UTF-16 whose two encodings agree byte for byte.
 */
export function formHash(form: string | Uint8Array): string {
  return oneShotHash("sha256", form, "hex").slice(0, 16);
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
 * `keys`: what to compare instead of the canonical forms, when the caller has them (`listForms`:
 * the form, or for a message whose form the other list does not have, its index).
 */
export function alignLists(
  before: readonly Message[],
  after: readonly Message[],
  keys?: { before: readonly unknown[]; after: readonly unknown[] },
): { removed: number[]; inserted: number[] } {
  const a = keys?.before ?? before.map(canonicalMessage);
  const b = keys?.after ?? after.map(canonicalMessage);
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
  return { removed: unmatched(midA.length, keptA, head), inserted: unmatched(midB.length, keptB, head) };
}

/** Positions `offset + i` of the `count` middle messages not in `kept` (a plain loop: the middle may be 100k long). */
function unmatched(count: number, kept: ReadonlySet<number>, offset: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < count; i++) if (!kept.has(i)) out.push(offset + i);
  return out;
}
