/**
 * Whether two JSON-like values print the same (as JSON.stringify would, up to
 * the order of object keys), without building their JSON: a compress with
 * nothing new compares the host's whole list with its result, and
 * stringifying both cost most of that call. Anything that is not a plain
 * object, array or primitive falls back to JSON.stringify. A "different" it
 * gets wrong only costs work; it never calls two different values the same.
 */
export function sameJson(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  if (depth > MAX_DEPTH) return stringified(a) === stringified(b);
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i], depth + 1)) return false;
    return true;
  }
  if (!isPlain(a) || !isPlain(b)) return stringified(a) === stringified(b);
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  let keysA = 0;
  for (const k in ra) {
    if (!Object.hasOwn(ra, k) || ra[k] === undefined) continue;
    keysA++;
    if (!Object.hasOwn(rb, k) || !sameJson(ra[k], rb[k], depth + 1)) return false;
  }
  let keysB = 0;
  for (const k in rb) if (Object.hasOwn(rb, k) && rb[k] !== undefined) keysB++;
  return keysA === keysB;
}

/** Deeper than any message: compared as JSON. */
const MAX_DEPTH = 64;

function isPlain(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function stringified(v: unknown): string | undefined {
  try {
    return JSON.stringify(v);
  } catch {
    return undefined;
  }
}
