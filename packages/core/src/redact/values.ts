/**
 * Judging a candidate value: is it a credential, or code, a placeholder, a
 * path, a hash, an identifier? Shared by every rule that finds a value next
 * to a name (assignments, flags, JSON fields).
 */

/** Code and placeholders: calls, lookups, templates, masks, variables, type names. */
const CODE_OR_PLACEHOLDER =
  /^(?:[A-Za-z_$][\w$]*(?:\.[\w$]+)*\s*[([]|\$|%\(|%[A-Za-z_]|\{|<|\*{3,}|•{3,}|x{4,}$|X{4,}$|\.{3}|…|\[REDACTED)/;

/** Whole values that are words of configuration, types and code, never credentials. */
const CODE_WORDS = new Set(
  ("null none nil true false undefined required optional string str int bool float number boolean bytes any object text varchar char " +
    "hidden masked omitted unset empty default auto yes no on off env getenv lambda self this function new await async return os process " +
    "redacted example sample dummy placeholder changeme change_me replace_me replaceme todo tbd fixme secret password passwd token pass pwd user " +
    "username").split(" "),
);

/** `your-password`, `<api key here>`, `YOUR_API_KEY`, `my_secret_token`: a template for the reader to fill in. */
const FILL_IN =
  /^(?:your|my|the|some|insert|enter|put|replace|add)[-_ ]?(?:[a-z]+[-_ ]?){0,3}(?:password|passwd|pass|pwd|secret|token|key|apikey|credentials?)(?:[-_ ]?here)?$/i;

/** Placeholder or code rather than a value: `${X}`, `<your key>`, `getpass()`, `os.environ[...]`, `None`, `****`. */
export function isPlaceholderOrCode(value: string): boolean {
  const v = value.replace(/^["']+|["']+$/g, "");
  if (v === "" || CODE_OR_PLACEHOLDER.test(v) || CODE_WORDS.has(v.toLowerCase()) || FILL_IN.test(v)) return true;
  // A dotted reference (process.env.DB_PASSWORD, self.secret, cfg.api.key) is code, not a value.
  return /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(v);
}

/** A path, a small number, a snake_case identifier, a version or a date: values that name things. */
export function isNameLike(value: string): boolean {
  return (
    /^(?:\/|\.{1,2}\/|~\/|[A-Za-z]:\\)/.test(value) ||
    /^\d{1,12}(?:\.\d+)?$/.test(value) ||
    /^[a-z]+(?:_[a-z]+)+$/.test(value) ||
    /^v?\d+(?:\.\d+){1,3}(?:[-+][\w.]+)?$/.test(value) ||
    /^\d{4}-\d\d-\d\d(?:[T ][\d:.]+(?:Z|[+-]\d\d:?\d\d)?)?$/.test(value)
  );
}

/**
 * A value assigned to a name that plainly says "secret" (password, token,
 * client_secret): anything that is not code, a placeholder or name-like is a
 * credential, a bare word too (`password=correcthorse`), but not a lowercase
 * word after a colon ("the password: remember to rotate it" is prose).
 */
export function looksLikeAssignedSecret(value: string, match = ""): boolean {
  const v = value.replace(/["']+$/, "");
  if (v.length < 6 || isPlaceholderOrCode(v) || isNameLike(v)) return false;
  const head = match.slice(0, match.lastIndexOf(value));
  if (/^[a-z]+$/.test(v) && /:[ \t]*$/.test(head)) return false;
  return true;
}

/** Bits per character of `text` (Shannon entropy over its characters). */
export function entropyPerChar(text: string): number {
  const counts = new Map<string, number>();
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX = /^(?:0x)?[0-9a-f]+$/i;

/** Base64 that decodes to ordinary text (words and spaces) is an encoding of prose, not a key. */
export function isBase64OfText(value: string): boolean {
  if (value.length < 8 || !/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 === 1) return false;
  let decoded: string;
  try {
    decoded = atob(value.replace(/=+$/, ""));
  } catch {
    return false;
  }
  if (decoded.length < 6 || !/^[\x20-\x7e\t\r\n]+$/.test(decoded)) return false;
  // Words: letters on both sides of a space ("a ullamcorper", "at ut vivamus"), a word of three letters or more,
  // and mostly letters and spaces overall (random bytes that happen to be printable are rarely all three).
  const wordish = (decoded.match(/[A-Za-z\s]/g) ?? []).length;
  return /[A-Za-z] [A-Za-z]/.test(decoded) && /[A-Za-z]{3}/.test(decoded) && wordish >= decoded.length * 0.7;
}

/**
 * Whether a value reads as machine-random (the bound for names that only
 * might be secret, and for values found near a name rather than assigned to
 * it): long enough, several character classes, high entropy, and not a
 * hash, UUID, identifier, path, date or base64 of ordinary text.
 */
export function looksRandom(value: string, minLength = 16): boolean {
  if (value.length < minLength || value.length > 4096) return false;
  if (UUID.test(value) || HEX.test(value) || isNameLike(value) || isPlaceholderOrCode(value) || isBase64OfText(value)) return false;
  if (/^https?:\/\//i.test(value) || /^[\w.-]+\/[\w./-]+$/.test(value)) return false;
  // Words joined by separators (cl100k_base, retry-after-30s, v2.beta.build): an identifier.
  const parts = value.split(/[_.-]/);
  const identifierPart = (p: string) => /^(?:[a-z0-9]+|[A-Z][a-z0-9]*|[A-Z0-9]+)$/.test(p);
  const word = (p: string) => /^(?:[a-z]{3,}|[A-Z][a-z]{2,}|[A-Z]{3,})$/.test(p);
  if (parts.length > 1 && parts.every(identifierPart) && parts.filter(word).length * 2 >= parts.length) return false;
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((re) => re.test(value)).length;
  if (classes < 2 || !/[0-9]/.test(value)) return false;
  // camelCase / kebab identifiers with a digit (getUser2, retry-after-30s) are low in entropy per character.
  return entropyPerChar(value) >= Math.min(3.5, Math.log2(value.length) * 0.8);
}
