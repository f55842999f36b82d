import fc from "fast-check";

/** Generators of invented credentials and of look-alikes, shared by the family tests. */

const LOWER = "abcdefghijklmnopqrstuvwxyz";
const UPPER = LOWER.toUpperCase();
const DIGITS = "0123456789";
const ALNUM = LOWER + UPPER + DIGITS;

/** Uniform (unbiased) strings over `alphabet`: credentials are random, not the small values fast-check favours. */
const chars = (alphabet: string, min: number, max: number) =>
  fc.noBias(fc.array(fc.constantFrom(...alphabet.split("")), { minLength: min, maxLength: max }).map((a) => a.join("")));

/** A machine-random credential: mixed case, a digit, optional URL-safe symbols; `n` to `m` characters. */
export const randomSecret = (min = 12, max = 40, symbols = "!#%^*+_~-") =>
  fc
    .tuple(chars(LOWER, 1, 1), chars(UPPER, 1, 1), chars(DIGITS, 1, 1), chars(ALNUM + symbols, min - 3, max - 3))
    .map(([a, b, c, rest]) => a + b + c + rest)
    // A generated value must not itself look like a placeholder ("xxxx…") or start a comment.
    .filter((s) => !/x{4}/i.test(s) && !/^[-#]/.test(s) && new Set(s).size >= s.length * 0.6);

/** Base64 (standard alphabet) of exactly `n` characters with mixed case and a digit, like an AWS secret key. */
export const base64Secret = (n: number) =>
  fc
    .tuple(chars(LOWER, 1, 1), chars(UPPER, 1, 1), chars(DIGITS, 1, 1), chars(`${ALNUM}+/`, n - 3, n - 3))
    .map(([a, b, c, rest]) => b + a + c + rest);

export const awsKeyId = (prefix: "AKIA" | "ASIA" = "AKIA") => chars(UPPER + DIGITS, 16, 16).map((s) => prefix + s);

export const hex = (n: number) => chars("0123456789abcdef", n, n);

/** Base64 of ordinary text: an encoding of words, not a key. */
export const base64OfProse = fc.lorem({ maxCount: 8 }).filter((t) => t.length >= 12 && t.includes(" ")).map((t) => btoa(t));

/** Separators between a name and its value, in the syntaxes they come from. */
export const assignmentSep = fc.constantFrom("=", " = ", ": ", ":", " := ", " => ", "\t=\t");

export const quote = fc.constantFrom("", '"', "'");

/** Names that plainly hold a secret. */
export const secretName = fc.constantFrom(
  "password", "PASSWORD", "Password", "db_password", "DB_PASSWORD", "userPassword", "passwd", "pwd", "PWD", "pass", "passphrase",
  "secret", "client_secret", "CLIENT_SECRET", "app_secret", "secret_key", "SECRET_KEY", "api_key", "API_KEY", "apiKey", "apikey",
  "token", "auth_token", "GITHUB_TOKEN", "access_token", "refresh_token", "private_key", "credentials", "credential",
);

export { ALNUM, chars };
