import { hash } from "node:crypto";
import { isPinsBlock, type Message } from "@context-engine/core";

/**
 * The canonical form, digest and list forms as the ledger computed them before forms were written
 * directly (a sorted copy, then JSON.stringify, then hashing and measuring the string). Kept as the
 * reference: ledger files on disk hold these digests, and a resumed session compares against them.
 */
export function referenceCopy(value: unknown, walk: { sameBytes: boolean }): unknown {
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) walk.sameBytes = false;
    return value.map((v) => referenceCopy(v, walk));
  }
  if (value && typeof value === "object") {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) walk.sameBytes = false;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value as Record<string, unknown>).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (key === "cache_control" || key === "__proto__") walk.sameBytes = false;
      if (key === "cache_control" || v === undefined) continue;
      out[key] = referenceCopy(v, walk);
    }
    return out;
  }
  return value;
}

export function referenceForm(message: unknown, walk = { sameBytes: true }): string | undefined {
  return JSON.stringify(referenceCopy(message, walk));
}

export function referenceDigest(message: Message): string {
  if (isPinsBlock(message)) return "pins-block";
  return hash("sha256", referenceForm(message)!, "hex").slice(0, 16);
}

/** The reference list forms (every form kept). */
export function referenceListForms(messages: readonly Message[]) {
  return messages.map((message) => {
    const walk = { sameBytes: true };
    const form = referenceForm(message, walk);
    const same = walk.sameBytes && form !== undefined;
    return {
      key: form,
      digest: referenceDigest(message),
      bytes: form === undefined ? 4 : Buffer.byteLength(form),
      sameBytes: same ? 1 : 0,
      wellFormed: same && !form.includes("\\ud") ? 1 : 0,
    };
  });
}
