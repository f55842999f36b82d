import { TOKEN_FORMATS, type TokenFormat, type TokenSegment } from "./provider-formats.js";
import type { SecretRule } from "./types.js";
import { entropyPerChar } from "./values.js";

/**
 * Detectors built from the documented token formats (`provider-formats.ts`):
 * the prefix and the character runs make the pattern; a candidate is kept
 * only if its random part reads as random (not words joined by separators, a
 * placeholder run like `xxxxxx`, or a single repeated character), so
 * `whsec_your_signing_secret_here` and `xoxb-not-a-real-token` stay readable.
 */

/**
 * Where a token may start: not inside a word, but right after a JSON or shell escape (`\n`, `\t`, `\r`), as
 * in tool-call arguments, where `\b` alone would miss it.
 */
export const TOKEN_START = String.raw`(?:(?<![A-Za-z0-9_])|(?<=\\[nrt]))`;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

function segmentSource(segment: TokenSegment, capture: boolean): string {
  if (typeof segment === "string") return escape(segment);
  if (Array.isArray(segment)) return `(?:${(segment as readonly string[]).map(escape).join("|")})`;
  const { chars, min, max } = segment as { chars: string; min: number; max?: number };
  const body = `[${chars}]{${min},${max ?? ""}}`;
  return capture ? `(${body})` : body;
}

/** The index of the segment that must read as random: the given one, else the longest run. */
export function randomPartOf(format: TokenFormat): number {
  if (format.randomPart !== undefined) return format.randomPart;
  let best = -1;
  let bestLength = -1;
  format.segments.forEach((s, i) => {
    if (typeof s === "object" && !Array.isArray(s)) {
      const length = (s as { max?: number; min: number }).max ?? (s as { min: number }).min + 100;
      if (length > bestLength) {
        best = i;
        bestLength = length;
      }
    }
  });
  return best;
}

/** The regex source of a format, with a right boundary when it ends in a fixed-length run. */
export function formatSource(format: TokenFormat, captureAt = -1): string {
  const last = format.segments[format.segments.length - 1];
  const fixedEnd = last !== undefined && typeof last === "object" && !Array.isArray(last) && (last as { max?: number }).max === (last as { min: number }).min;
  const end = fixedEnd ? `(?![${(last as { chars: string }).chars}])` : "";
  return format.segments.map((s, i) => segmentSource(s, i === captureAt)).join("") + end;
}

/**
 * Whether a token's random part reads as machine-made: long runs of one character, `xxxxxx` placeholders and
 * words joined by separators do not; mixed letters and digits, or mixed case with high entropy, do.
 */
export function readsAsRandom(part: string): boolean {
  if (/(.)\1{5,}/.test(part) || /x{5,}|X{5,}/.test(part)) return false;
  const hasDigit = /[0-9]/.test(part);
  const hasLetter = /[A-Za-z]/.test(part);
  if (!hasLetter) return hasDigit && part.replace(/[^0-9]/g, "").length >= 6 && new Set(part).size >= 5;
  const words = part.split(/[^A-Za-z0-9]+/).filter(Boolean);
  if (words.length > 1 && words.every((w) => /^(?:[a-z]+|[A-Z][a-z]+|[A-Z]+)$/.test(w))) return false;
  // Letters and digits: random unless a few characters repeat (`test1test1test1`); hex of a fixed-format token is.
  if (hasDigit && /^[0-9a-f]{8,}$/i.test(part)) return true;
  if (hasDigit) return new Set(part).size >= Math.min(6, part.length / 2);
  const letters = part.replace(/[^A-Za-z]/g, "");
  // One case only and no digit: lower case is words run together; upper case only when long and varied.
  if (letters === letters.toLowerCase()) return false;
  if (letters === letters.toUpperCase()) return letters.length >= 12 && entropyPerChar(letters) >= 3.2;
  // Mixed case: camelCase words (`ExampleTokenHere`) have few capitals and humps that read as words (a vowel,
  // no run of four consonants); random text has about as many capitals as small letters.
  return !isCamelCaseWords(letters) && entropyPerChar(part) >= Math.min(3, Math.log2(part.length) * 0.75);
}

function isCamelCaseWords(letters: string): boolean {
  const humps = letters.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+/g) ?? [];
  const upper = letters.replace(/[^A-Z]/g, "").length / letters.length;
  return upper <= 0.34 && humps.every((h) => h.length >= 2 && /[aeiouy]/i.test(h) && !/[^aeiouy]{4}/i.test(h));
}

/**
 * Screen fragments for a format: the fragments it declares, else its fixed prefix (each spelling) followed
 * by the first run of characters at its minimum length, so prose that merely contains the prefix ("task_",
 * "pattern") is not sent through the rule.
 */
function screenOf(format: TokenFormat): string[] {
  if (format.screen) return [...format.screen];
  const [first, second] = format.segments;
  const next = second !== undefined && typeof second === "object" && !Array.isArray(second) ? `[${(second as { chars: string }).chars}]{${Math.min((second as { min: number }).min, 40)}}` : "";
  if (typeof first === "string") return [escape(first) + next];
  if (Array.isArray(first)) return (first as readonly string[]).filter(Boolean).map((p) => escape(p) + next);
  throw new Error(`token format ${format.provider}: a format that does not start with a fixed text needs a screen`);
}

function ruleOf(format: TokenFormat): SecretRule {
  const start = format.after ? `(?:${TOKEN_START}|(?<=${escape(format.after)}))` : TOKEN_START;
  const randomAt = randomPartOf(format);
  const anchored = new RegExp(`^${formatSource(format, randomAt)}$`);
  return {
    kind: format.kind,
    pattern: new RegExp(start + formatSource(format), "g"),
    screen: screenOf(format),
    accept: (token) => {
      if (format.check && !format.check(token)) return false;
      const part = anchored.exec(token)?.[1];
      return part === undefined || readsAsRandom(part);
    },
  };
}

export const PROVIDER_RULES: readonly SecretRule[] = TOKEN_FORMATS.map(ruleOf);
