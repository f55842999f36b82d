/**
 * Round-trip metadata must survive engines that store messages as JSON
 * (LCM keeps them in SQLite), so bytes and URLs are tagged on the way in
 * and restored on the way out.
 */
const BYTES = "$ce_bytes";
const URL_TAG = "$ce_url";

export function encodeJsonSafe(value: unknown): unknown {
  if (value instanceof Uint8Array) return { [BYTES]: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64") };
  if (value instanceof ArrayBuffer) return { [BYTES]: Buffer.from(value).toString("base64") };
  if (value instanceof URL) return { [URL_TAG]: value.href };
  if (Array.isArray(value)) return value.map(encodeJsonSafe);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = encodeJsonSafe(v);
    return out;
  }
  return value;
}

export function decodeJsonSafe(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decodeJsonSafe);
  if (value && typeof value === "object") {
    const rec = value as Record<string, unknown>;
    const keys = Object.keys(rec);
    if (keys.length === 1 && typeof rec[BYTES] === "string") return new Uint8Array(Buffer.from(rec[BYTES], "base64"));
    if (keys.length === 1 && typeof rec[URL_TAG] === "string") return new URL(rec[URL_TAG]);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(rec)) out[k] = decodeJsonSafe(v);
    return out;
  }
  return value;
}

/** Structural equality over JSON-like values, bytes and URLs. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    if (!(a instanceof Uint8Array && b instanceof Uint8Array) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  if (a instanceof URL || b instanceof URL) return String(a) === String(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!(Array.isArray(a) && Array.isArray(b)) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i]));
  }
  if (a && b && typeof a === "object" && typeof b === "object") {
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    const ka = Object.keys(ra).filter((k) => ra[k] !== undefined);
    const kb = Object.keys(rb).filter((k) => rb[k] !== undefined);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => deepEqual(ra[k], rb[k]));
  }
  return false;
}
