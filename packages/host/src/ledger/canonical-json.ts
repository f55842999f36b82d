/**
 * The canonical form of a message written straight from the message: sorted-key JSON with
 * `cache_control` and undefined fields dropped, exactly `JSON.stringify(canonicalCopy(value))`
 * (digest.ts) without building the sorted copy first. A first turn puts 100k messages in form:
 * this skips the copy's objects, and text with nothing to escape (most prose and arguments) is put
 * in quotes instead of being scanned again by JSON.stringify. Escaping the rest is the same work
 * either way, and with the hash it is most of the cost.
 *
 * Only plain data is written here: plain or null-prototype objects, real arrays, strings, numbers,
 * booleans, null. Anything whose JSON depends on more than its own fields (a `toJSON` function, an
 * own `__proto__` key, a class instance, a boxed value, a function, a bigint) sends the whole
 * message back to the copy path, so its form is the reference's by construction.
 */

/** What a walk learns besides the text: cleared where the form may differ in length from `JSON.stringify(value)`. */
export interface FormWalk {
  sameBytes: boolean;
}

/** Stands for "this message is not plain data": the caller takes the copy path for the whole message. */
const NOT_PLAIN = Symbol("not plain data");

type Piece = string | typeof NOT_PLAIN;

/** Quoted keys: messages reuse a few dozen keys; bounded so odd data cannot grow it without limit. */
const quotedKeys = new Map<string, string>();
const QUOTED_KEYS_MAX = 512;

function quoteKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (quotedKeys.size < QUOTED_KEYS_MAX) quotedKeys.set(key, quoted);
  }
  return quoted;
}

/**
 * The canonical form of `value` when it is plain data, else undefined (take the copy path).
 * Clears `walk.sameBytes` on a dropped `cache_control`, as `canonicalCopy` does.
 */
export function plainCanonicalJson(value: unknown, walk: FormWalk): string | undefined {
  // A toJSON put on the shared prototypes would be called on the copy's objects and arrays: leave that to the copy path.
  if (value === null || typeof value !== "object" || "toJSON" in Object.prototype || "toJSON" in Array.prototype) return undefined;
  const start = walk.sameBytes;
  const form = write(value, walk);
  if (form !== NOT_PLAIN) return form;
  walk.sameBytes = start;
  return undefined;
}

/**
 * Characters JSON.stringify writes as escapes: the quote, the backslash, controls, and surrogates (a lone one
 * is escaped; a paired one is not, but is sent to JSON.stringify too, which decides).
 */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** `JSON.stringify(text)`: most text (prose, arguments) has nothing to escape and is only put in quotes. */
function quote(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

function write(value: unknown, walk: FormWalk): Piece {
  switch (typeof value) {
    case "string":
      return quote(value);
    case "number":
      // JSON writes a finite number as Number#toString does (-0 as "0", 1e21 as "1e+21"), NaN and ±Infinity as null.
      return Number.isFinite(value) ? String(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "object":
      if (value === null) return "null";
      return Array.isArray(value) ? writeArray(value, walk) : writeObject(value as Record<string, unknown>, walk);
    default:
      // undefined is handled by the callers (dropped in objects, null in arrays); functions, symbols, bigints are not data.
      return NOT_PLAIN;
  }
}

function writeArray(list: readonly unknown[], walk: FormWalk): Piece {
  if (Object.getPrototypeOf(list) !== Array.prototype) return NOT_PLAIN;
  let out = "[";
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    // A hole or undefined element is null in JSON, as in the copy.
    const piece = item === undefined ? "null" : write(item, walk);
    if (piece === NOT_PLAIN) return NOT_PLAIN;
    out += i === 0 ? piece : `,${piece}`;
  }
  return `${out}]`;
}

function writeObject(object: Record<string, unknown>, walk: FormWalk): Piece {
  const proto = Object.getPrototypeOf(object);
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
  const keys = copyKeyOrder(Object.keys(object).sort());
  let out = "{";
  let first = true;
  for (const key of keys) {
    // The copy turns an own "__proto__" into its prototype: the copy path keeps that rule. (A toJSON field JSON would
    // call is a function, and functions are not plain data; any other toJSON value is an ordinary field.)
    if (key === "__proto__") return NOT_PLAIN;
    // Read once, in sorted order, as the copy does (a getter sees the same calls).
    const field = object[key];
    if (key === "cache_control") {
      walk.sameBytes = false;
      continue;
    }
    if (field === undefined) continue;
    const piece = write(field, walk);
    if (piece === NOT_PLAIN) return NOT_PLAIN;
    out += first ? `${quoteKey(key)}:${piece}` : `,${quoteKey(key)}:${piece}`;
    first = false;
  }
  return `${out}}`;
}

/**
 * The order JSON.stringify lists the sorted copy's keys in: an object lists array-index keys ("0",
 * "2", "10") first in numeric order, then the others in the order they were added (here sorted).
 */
function copyKeyOrder(sorted: string[]): string[] {
  let indexes: string[] | null = null;
  for (const key of sorted) {
    const c = key.charCodeAt(0);
    if (c >= 0x30 && c <= 0x39 && isArrayIndex(key)) (indexes ??= []).push(key);
  }
  if (indexes === null) return sorted;
  indexes.sort((a, b) => Number(a) - Number(b));
  return [...indexes, ...sorted.filter((key) => !isArrayIndex(key))];
}

/** A canonical unsigned integer below 2^32 - 1 ("0", "7", "10"; not "01", "1.0" or "4294967295"). */
function isArrayIndex(key: string): boolean {
  if (!/^(?:0|[1-9][0-9]*)$/.test(key)) return false;
  return Number(key) < 4294967295;
}
