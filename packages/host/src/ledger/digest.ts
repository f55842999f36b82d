import { hash as oneShotHash } from "node:crypto";
import type { Message } from "@context-engine/core";
import { applyCacheBreakpoints } from "../request/cache-breakpoints.js";
import { sanitizeRequestMessages } from "../request/sanitize.js";
import { isPinsBlock } from "./pins-block.js";

/** Stands for the pins block in digests: a pin added later must not make older entries' anchors unfindable. */
const PINS_KEY = "pins-block";

/**
 * A message's canonical form: keys sorted, `cache_control` markers and
 * undefined fields dropped (a moved cache breakpoint is not a different message).
 */
export function canonicalMessage(message: Message): string {
  return JSON.stringify(canonical(message));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value as Record<string, unknown>).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (key === "cache_control" || v === undefined) continue;
      out[key] = canonical(v);
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

export interface PrefixImpact {
  /** UTF-8 bytes of the request before the compaction, serialised as the host sends it (`requestBody`). */
  bytesBefore: number;
  bytesAfter: number;
  /** Leading bytes the two serialisations share: what a provider's prefix cache can still serve. */
  identicalPrefixBytes: number;
}

/** What a request carries besides its messages; absent, the figures cover the message list alone. */
export interface RequestShape {
  model: string;
  tools: readonly unknown[];
  /** Cache breakpoints are put on the list (`host.prompt_cache` on for this model). */
  promptCache: boolean;
}

/**
 * The request body as the host's provider client serialises it, up to its
 * messages: `{"model":…,"tools":[…],"messages":[…]` (sanitised, with cache
 * breakpoints when on). Fields after the messages (max_tokens, stream) are
 * not part of any prefix a compaction can change. An engine's `selectContext`
 * runs per request and is not applied here.
 */
export function requestBody(messages: readonly Message[], shape: RequestShape): string {
  let list = sanitizeRequestMessages(messages.slice()).messages;
  if (shape.promptCache) list = applyCacheBreakpoints(list).messages;
  return JSON.stringify({ model: shape.model, ...(shape.tools.length > 0 ? { tools: shape.tools } : {}), messages: list });
}

/** How much of the request prefix stays byte-identical across a change of the message list. */
export function prefixImpact(before: readonly Message[], after: readonly Message[], shape?: RequestShape): PrefixImpact {
  const serialise = (list: readonly Message[]) => (shape ? requestBody(list, shape) : JSON.stringify(list.map(canonical)));
  const a = serialise(before);
  const b = serialise(after);
  return { bytesBefore: Buffer.byteLength(a), bytesAfter: Buffer.byteLength(b), identicalPrefixBytes: commonUtf8PrefixBytes(a, b) };
}

/** Chunk compared at once when looking for the first difference (string comparison is a memcmp; a JS loop per byte is not). */
const COMPARE_CHUNK = 4096;

/** The leading UTF-8 bytes `a` and `b` share, without encoding either whole (a request of 100k messages is tens of MB). */
export function commonUtf8PrefixBytes(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let i = 0;
  while (i < limit && a.slice(i, i + COMPARE_CHUNK) === b.slice(i, i + COMPARE_CHUNK)) i += COMPARE_CHUNK;
  while (i < limit && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  // Never split a surrogate pair: the pair is one UTF-8 sequence, compared byte by byte below.
  if (i > 0 && isHighSurrogate(a.charCodeAt(i - 1))) i--;
  const bytes = Buffer.byteLength(a.slice(0, i));
  // Surrogates (paired, or lone ones that both encode as U+FFFD): compare the rest as bytes, the exact rule.
  if (isSurrogate(a.charCodeAt(i)) || isSurrogate(b.charCodeAt(i))) return bytes + commonBytes(Buffer.from(a.slice(i)), Buffer.from(b.slice(i)));
  // Two different characters of the BMP may still share leading bytes ("é" and "è" both start with 0xC3).
  return bytes + commonBytes(Buffer.from(a.slice(i, i + 1)), Buffer.from(b.slice(i, i + 1)));
}

function commonBytes(x: Buffer, y: Buffer): number {
  let k = 0;
  while (k < x.length && k < y.length && x[k] === y[k]) k++;
  return k;
}

function isSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdfff;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
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
