import type { Message } from "@context-engine/core";
import { canonicalForm, formHash, PINS_KEY } from "./digest.js";
import { isPinsBlock } from "./pins-block.js";

/**
 * What the ledger needs of each message's canonical form, taken in one pass: its digest, its UTF-8
 * length, and the form itself only where the alignment can use it. A first turn hands over 100k
 * messages (tens of MB of forms): a form no message of the other list has is dropped as soon as it
 * is hashed and measured, so it dies young instead of being carried into the old generation.
 */
export interface ListForms {
  /** Per message, for `alignLists`: its canonical form when kept, else its index (equal to no form). */
  keys: unknown[];
  /** `messageDigest` of each message. */
  digests: string[];
  /** UTF-8 bytes of each canonical form as it stands in a JSON list (`null` for a message that has none). */
  bytes: Float64Array;
  /**
   * 1 where `JSON.stringify(message)` has the canonical form's byte length: sorting keys keeps the length,
   * so only a dropped `cache_control`, an own `__proto__` key or an object that is not plain data (a
   * `toJSON`, a boxed value) makes it 0. Lets the prefix figure count bytes without serialising again.
   */
  sameBytes: Uint8Array;
  /**
   * 1 where the message surely has no lone surrogate: its form covers every value (`sameBytes`) and
   * holds no `\ud…` escape, which is how JSON.stringify writes one. 0: not known, check the message.
   */
  wellFormed: Uint8Array;
}

/**
 * Which forms go into `keys`: `hash` is the form's `formHash`, which equal forms share, when it was
 * taken (not for the pins block, whose digest is a fixed key, nor for a message with no form).
 */
export type KeepForm = (form: string | undefined, hash: string | undefined) => boolean;

/** The forms of a list; `keep` says which forms go into `keys` (all when absent). */
export function listForms(messages: readonly Message[], keep?: KeepForm): ListForms {
  const n = messages.length;
  const forms: ListForms = { keys: new Array<unknown>(n), digests: new Array<string>(n), bytes: new Float64Array(n), sameBytes: new Uint8Array(n), wellFormed: new Uint8Array(n) };
  const walk = { sameBytes: true };
  for (let i = 0; i < n; i++) {
    const message = messages[i]!;
    walk.sameBytes = true;
    const form = canonicalForm(message, walk);
    const same = walk.sameBytes && form !== undefined;
    const hash = measure(message, form, forms, i);
    forms.keys[i] = keep === undefined || keep(form, hash) ? form : i;
    forms.sameBytes[i] = same ? 1 : 0;
    forms.wellFormed[i] = same && !form.includes("\\ud") ? 1 : 0;
  }
  return forms;
}

/** Scratch for one form's UTF-8 bytes (forms up to a third of it; a longer one is measured and hashed from the string). */
const scratch = Buffer.allocUnsafe(1 << 16);

/**
 * Digest and UTF-8 length of message `i`'s form, from one encoding of it into `scratch` instead of
 * one for the length and another inside the hash. Returns the form's hash when it was taken.
 */
function measure(message: Message, form: string | undefined, forms: ListForms, i: number): string | undefined {
  // Asked before the scratch is written: nothing (not even a getter on the message) runs between writing and hashing it.
  const pins = isPinsBlock(message);
  // A UTF-16 unit takes at most 3 UTF-8 bytes, so a form this short always fits whole.
  const fits = form !== undefined && form.length * 3 <= scratch.length;
  const length = fits ? scratch.write(form) : form === undefined ? 4 : Buffer.byteLength(form);
  forms.bytes[i] = length;
  if (pins) {
    forms.digests[i] = PINS_KEY;
    return undefined;
  }
  // A message with no form (undefined) fails here as the string hash always made it fail.
  const hash = formHash(fits ? scratch.subarray(0, length) : form!);
  forms.digests[i] = hash;
  return hash;
}
