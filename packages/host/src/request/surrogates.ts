/**
 * Lone UTF-16 surrogates (half an emoji cut by a truncation, bad decoding)
 * make providers reject the whole request as invalid JSON/UTF-8. They are
 * replaced with U+FFFD in the request copy only.
 */

import { setOwnField } from "../clone.js";

type StrWithWellFormed = string & { isWellFormed?: () => boolean; toWellFormed?: () => string };

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_ALL = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function hasLoneSurrogate(text: string): boolean {
  const s = text as StrWithWellFormed;
  if (typeof s.isWellFormed === "function") return !s.isWellFormed();
  return LONE.test(text);
}

export function fixLoneSurrogates(text: string): string {
  const s = text as StrWithWellFormed;
  if (typeof s.toWellFormed === "function") return s.toWellFormed();
  return text.replace(LONE_ALL, "\uFFFD");
}

/**
 * Whether any string inside a message has a lone surrogate: string content,
 * every field of every content part (text, refusal, URLs, …), tool-call
 * names and arguments, and any other field a provider will receive.
 */
export function messageHasLoneSurrogate(message: Record<string, unknown>): boolean {
  return valueHasLoneSurrogate(message);
}

/** A copy of the message with every lone surrogate replaced; only the touched objects and arrays are copied. */
export function fixMessageSurrogates<M extends Record<string, unknown>>(message: M): M {
  return fixValue(message) as M;
}

function valueHasLoneSurrogate(value: unknown): boolean {
  if (typeof value === "string") return hasLoneSurrogate(value);
  if (value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) return value.some(valueHasLoneSurrogate);
  for (const key of Object.keys(value)) {
    if (valueHasLoneSurrogate((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

function fixValue(value: unknown): unknown {
  if (typeof value === "string") return hasLoneSurrogate(value) ? fixLoneSurrogates(value) : value;
  if (value === null || typeof value !== "object" || !valueHasLoneSurrogate(value)) return value;
  if (Array.isArray(value)) return value.map(fixValue);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    setOwnField(out, key, fixValue((value as Record<string, unknown>)[key]));
  }
  return out;
}
