import type { Message } from "@context-engine/core";
import { applyCacheBreakpoints } from "../request/cache-breakpoints.js";
import { sanitizeRequestMessages } from "../request/sanitize.js";
import { canonicalMessage } from "./digest.js";
import type { ListForms } from "./list-forms.js";

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

/** The message list a request sends: sanitised (`forms`, when at hand, tell which need no surrogate check), with cache breakpoints when on. */
function requestList(messages: readonly Message[], shape: RequestShape, forms?: ListForms): Message[] {
  const wellFormed = forms?.wellFormed;
  let list = sanitizeRequestMessages(messages.slice(), wellFormed ? { wellFormed: (at) => wellFormed[at] === 1 } : undefined).messages;
  if (shape.promptCache) list = applyCacheBreakpoints(list).messages;
  return list;
}

/**
 * The request body as the host's provider client serialises it, up to its
 * messages: `{"model":…,"tools":[…],"messages":[…]` (sanitised, with cache
 * breakpoints when on). Fields after the messages (max_tokens, stream) are
 * not part of any prefix a compaction can change. An engine's `selectContext`
 * runs per request and is not applied here.
 */
export function requestBody(messages: readonly Message[], shape: RequestShape): string {
  return JSON.stringify(bodyObject(shape, requestList(messages, shape)));
}

/** The body's fields in the order the provider client writes them, up to and with the messages. */
function bodyObject(shape: RequestShape, messages: readonly Message[]) {
  return { model: shape.model, ...(shape.tools.length > 0 ? { tools: shape.tools } : {}), messages };
}

/**
 * How much of the request prefix stays byte-identical across a change of the message list.
 * `forms`: what the caller took of the lists' canonical forms (the ledger does), so the bytes of
 * messages the request sends unchanged are counted from them instead of serialising the list again.
 */
export function prefixImpact(before: readonly Message[], after: readonly Message[], shape?: RequestShape, forms?: { before: ListForms; after: ListForms }): PrefixImpact {
  const a = new BodyPieces(before, shape, forms?.before);
  const b = new BodyPieces(after, shape, forms?.after);
  return { bytesBefore: a.totalBytes(), bytesAfter: b.totalBytes(), identicalPrefixBytes: sharedPrefixBytes(a, b) };
}

/**
 * A serialised list as pieces whose concatenation is exactly the body
 * (`requestBody`, or the JSON of the canonical forms without a shape): the
 * opening, one piece per message (with its leading comma), the closing. A
 * list of 100k messages is never joined into one string of tens of MB; only
 * the pieces up to the first difference are compared.
 */
class BodyPieces {
  readonly list: readonly Message[];
  readonly count: number;
  readonly #head: string;
  readonly #tail: string;
  readonly #original: readonly Message[];
  readonly #forms: ListForms | undefined;
  /** Without a shape or forms: the canonical forms, the body's pieces (computed once). */
  readonly #texts: readonly (string | undefined)[] | null;
  readonly #shaped: boolean;
  #indexOf: Map<Message, number> | null = null;

  constructor(original: readonly Message[], shape: RequestShape | undefined, forms: ListForms | undefined) {
    this.#original = original;
    this.#shaped = shape !== undefined;
    this.#forms = forms;
    // Without a shape the body is the canonical forms' JSON array: with the forms' byte counts at hand only the
    // pieces up to the first difference are needed (put in form again there), else every one is.
    this.#texts = shape || forms ? null : original.map(canonicalMessage);
    this.list = shape ? requestList(original, shape, forms) : original;
    // `{"model":…,"messages":[` and `]}`: JSON.stringify of the object with an empty list, split at the list.
    this.#head = shape ? JSON.stringify(bodyObject(shape, [])).slice(0, -2) : "[";
    this.#tail = shape ? "]}" : "]";
    this.count = this.list.length + 2;
  }

  text(i: number): string {
    if (i === 0) return this.#head;
    if (i === this.count - 1) return this.#tail;
    return (i > 1 ? "," : "") + this.#messageText(i - 1);
  }

  bytes(i: number): number {
    if (i === 0 || i === this.count - 1) return Buffer.byteLength(this.text(i));
    const k = i - 1;
    const known = this.#knownBytes(k);
    return (k > 0 ? 1 : 0) + (known >= 0 ? known : Buffer.byteLength(this.#messageText(k)));
  }

  totalBytes(): number {
    let total = 0;
    for (let i = 0; i < this.count; i++) total += this.bytes(i);
    return total;
  }

  /** Whether piece `i` is the same text in both bodies; the same message object sent as it is needs no serialising. */
  samePiece(i: number, other: BodyPieces): boolean {
    const mine = i > 0 && i < this.count - 1;
    const theirs = i > 0 && i < other.count - 1;
    if (mine && theirs && this.list[i - 1] === other.list[i - 1]) return true;
    return this.text(i) === other.text(i);
  }

  #messageText(k: number): string {
    if (!this.#shaped) return (this.#texts ? this.#texts[k] : canonicalMessage(this.#original[k]!)) ?? "null";
    return JSON.stringify(this.list[k]) ?? "null";
  }

  /** UTF-8 bytes of request message `k` from the forms, when they have the byte length of its JSON; else -1. */
  #knownBytes(k: number): number {
    const forms = this.#forms;
    if (!forms) return -1;
    if (!this.#shaped) return forms.bytes[k]!;
    const at = this.#originalIndex(this.list[k]!, k);
    return at >= 0 && forms.sameBytes[at] === 1 ? forms.bytes[at]! : -1;
  }

  /** Where the request's message stands in the list given (the sanitisers drop and copy, so not always at `k`); -1: a copy. */
  #originalIndex(message: Message, k: number): number {
    if (this.#original[k] === message) return k;
    if (!this.#indexOf) {
      this.#indexOf = new Map();
      for (let j = this.#original.length - 1; j >= 0; j--) this.#indexOf.set(this.#original[j]!, j);
    }
    return this.#indexOf.get(message) ?? -1;
  }
}

function sharedPrefixBytes(a: BodyPieces, b: BodyPieces): number {
  let bytes = 0;
  let i = 0;
  const n = Math.min(a.count, b.count);
  while (i < n && a.samePiece(i, b)) bytes += a.bytes(i++);
  if (i === a.count && i === b.count) return bytes;
  return bytes + restsSharedBytes(a, b, i);
}

/**
 * The shared leading bytes of the two bodies from piece `from` on, joining
 * only as many pieces as the comparison needs (a difference usually lies in
 * the first piece). Bodies are JSON.stringify output, so well-formed UTF-16:
 * two spare characters past the first difference settle its bytes.
 */
function restsSharedBytes(a: BodyPieces, b: BodyPieces, from: number): number {
  let sa = "";
  let sb = "";
  let ia = from;
  let ib = from;
  for (let want = 4096; ; want *= 4) {
    while (sa.length < want && ia < a.count) sa += a.text(ia++);
    while (sb.length < want && ib < b.count) sb += b.text(ib++);
    const aDone = ia === a.count;
    const bDone = ib === b.count;
    const settled =
      commonUnits(sa, sb) + 2 < Math.min(sa.length, sb.length) || (aDone && bDone) || (aDone && sb.length >= sa.length + 2) || (bDone && sa.length >= sb.length + 2);
    if (settled) return commonUtf8PrefixBytes(sa, sb);
  }
}

/** Chunk compared at once when looking for the first difference (string comparison is a memcmp; a JS loop per byte is not). */
const COMPARE_CHUNK = 4096;

/** How many leading UTF-16 units `a` and `b` share. */
function commonUnits(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let i = 0;
  while (i < limit && a.slice(i, i + COMPARE_CHUNK) === b.slice(i, i + COMPARE_CHUNK)) i += COMPARE_CHUNK;
  while (i < limit && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return Math.min(i, limit);
}

/** The leading UTF-8 bytes `a` and `b` share, without encoding either whole (a request of 100k messages is tens of MB). */
export function commonUtf8PrefixBytes(a: string, b: string): number {
  let i = commonUnits(a, b);
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
