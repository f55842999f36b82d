import type { SecretRule } from "./types.js";
import { isNameLike, isPlaceholderOrCode, looksLikeAssignedSecret, looksRandom } from "./values.js";

/**
 * Secrets found by the name next to them: `name = value` in code, env files,
 * YAML, INI and JSON (`password: …`, `PASSWORD=…`, `"pass": "…"`, `pwd=…`,
 * `aws_secret_access_key = …`, `"SessionToken": "…"`), and values near a
 * secret-like name in prose ("the password is …"). A plain name ("password",
 * "client_secret", "api_key") takes any value that is not code, a
 * placeholder or a name; a name that only might hold a secret
 * ("password_hash", "encryption_key", "auth") takes only a machine-random
 * value (entropy-bounded), so hashes, UUIDs and identifiers survive.
 */

/** A case-insensitive character-class spelling of a word (`pwd` -> `[Pp][Ww][Dd]`), for patterns without the `i` flag. */
export function ci(word: string): string {
  return word.replace(/[a-z]/gi, (c) => `[${c.toUpperCase()}${c.toLowerCase()}]`);
}

/** Between a name and its value: an optional closing quote (JSON-escaped too), then `=`, `:`, `:=` or `=>`. */
const SEP = String.raw`\\?["']?[ \t]*(?:=>|:=|=|:)[ \t]*`;
/** The value: a quoted string (JSON-escaped too), or an unquoted run up to a delimiter. */
const VALUE = String.raw`(?:\\?"(?<secret>[^"\\\r\n]{1,300})\\?"|'(?<secret2>[^'\r\n]{1,300})'|(?<secret3>[^\s"'\x60,;)}\]\\]{1,300}))`;

/** Suffixes after a secret keyword that still name the secret itself (`password2`, `secret_key`, `token_value`). */
const PLAIN_SUFFIX =
  /^(?:[_.-]?(?:\d+|s|new|old|confirm(?:ation)?|again|plain(?:text)?|value|str(?:ing)?|b64|base64|access|api|client|app|master|signing|encryption|private|ssh|gpg|auth|bot|user|admin|root|db|secret)){0,3}(?:[_.-]?(?:key|keys|token|tokens|secret|pass(?:word)?))?$/i;

interface NameGroups {
  rest?: string | undefined;
}

/** Plain name: any credential-like value; other names: a machine-random one. */
function acceptByName(secret: string, match: string, groups?: NameGroups): boolean {
  const rest = groups?.rest ?? "";
  // A bare `PASS:` / `pass:` is usually a test-result label ("PASS: tests/a.py"): after it only a machine-random
  // value counts. `pass=…` and `"pass": …` are assignments like any other.
  if (rest === "" && /^pass[ \t]*:(?!=)/i.test(match)) return looksRandom(secret.replace(/["']+$/, ""), 10);
  if (PLAIN_SUFFIX.test(rest)) return looksLikeAssignedSecret(secret, match);
  const value = secret.replace(/["']+$/, "");
  return looksRandom(value, 10) || isMachineKeyFor(rest, value);
}

/** Suffixes that say the value is about a secret, not the secret: its hash, id, name, path, version. */
const NOT_THE_SECRET = /hash|digest|sha\d*|md5|checksum|crc|(?:^|[_.-])id$|ids?$|fingerprint|etag|commit|version|name|path|file|url|uri|endpoint|type|length|len|size|count|ttl|expir|rotat|format|algo/i;

/**
 * A long machine-made value (hex of 32+ characters, or base64 of 32+) under a secret name with any other suffix
 * (`SECRET_KEY_BASE`, `secret_token_b`, `API_KEY_PROD`): hex is what frameworks generate for these, and the
 * entropy check alone refuses hex (it is also what hashes look like, which the suffix rules out here).
 */
function isMachineKeyFor(rest: string, value: string): boolean {
  if (NOT_THE_SECRET.test(rest)) return false;
  return /^[0-9a-fA-F]{32,}$/.test(value) || (/^[A-Za-z0-9+/_-]{32,}={0,2}$/.test(value) && /[0-9]/.test(value) && /[A-Za-z]/.test(value));
}

/** Password names: `password`, `passwd`, `passphrase` anywhere in a name (any suffix). */
const PASSWORD_NAME = `${ci("pass")}(?:${ci("word")}|${ci("wd")}|${ci("phrase")})`;
/** Short password names, `pass` and `pwd`, as a word or a camelCase part; a suffix needs a separator (not `passed`). */
const SHORT_PASSWORD_NAME = `(?:(?<![A-Za-z])(?:${ci("pass")}|${ci("pwd")})|(?<=[a-z])(?:Pass|PASS|Pwd|PWD))`;
/** Other secret names: secret, token, api key, credential(s), private / access keys. */
const SECRET_NAME = `(?:${ci("secret")}|${ci("api")}[_-]?${ci("key")}|${ci("credential")}|${ci("private")}[_-]?${ci("key")}|${ci("access")}[_-]?${ci("key")})`;
/** Names that might hold a secret: a `_key` / `Key` suffix, `auth`, `sig`, `signature`. */
const MAYBE_SECRET_NAME = `(?:[_-]${ci("key")}|(?<=[a-z])(?:Key|KEY)|(?<![A-Za-z])${ci("auth")}|(?<![A-Za-z])${ci("sig")}(?:${ci("nature")})?)`;

const assignment = (name: string, rest = "\\w{0,30}") => new RegExp(`${name}(?<rest>${rest})${SEP}${VALUE}`, "g");

export const ASSIGNMENT_RULES: readonly SecretRule[] = [
  {
    kind: "aws_secret_key",
    // Credentials files, env, STS JSON: aws_secret_access_key = …, AWS_SECRET_ACCESS_KEY=…, "SecretAccessKey": "…".
    pattern: new RegExp(`(?:(?:${ci("aws")}_?)?${ci("secret")}_?${ci("access")}_?${ci("key")}|${ci("aws")}_?${ci("secret")}_?${ci("key")})(?<rest>)${SEP}${VALUE}`, "g"),
    screen: ["secret_?access_?key", "aws_?secret_?key"],
    accept: (s, m) => looksLikeAssignedSecret(s, m),
  },
  {
    kind: "aws_session_token",
    pattern: new RegExp(`(?:${ci("aws")}_?(?:${ci("session")}|${ci("security")})_?${ci("token")}|${ci("session")}_?${ci("token")}|X-Amz-Security-Token|x-amz-security-token)(?<rest>)${SEP}${VALUE}`, "g"),
    screen: ["session_?token", "security_?token", "security-token"],
    accept: (s, m) => looksLikeAssignedSecret(s, m),
  },
  {
    kind: "generic_api_key",
    // Header style: `X-Api-Key: abc…`, `api-key: …`.
    pattern: /\b(?:x-api-key|api-key|x-auth-token|x-access-token|private-token)\s*:\s*(?<secret>[^\s"',;]{8,})/gi,
    screen: ["api-key", "auth-token", "access-token", "private-token"],
    accept: (s) => !isPlaceholderOrCode(s) && !isNameLike(s),
  },
  {
    kind: "password_assignment",
    pattern: assignment(PASSWORD_NAME),
    screen: [`pass(?:word|wd|phrase)\\w*\\\\?["']?[ \\t]*[:=]`],
    accept: acceptByName,
  },
  {
    kind: "password_assignment",
    pattern: assignment(SHORT_PASSWORD_NAME, "(?:[_-]\\w{0,29})?"),
    screen: [`(?:pass|pwd)(?:[_-]\\w*)?\\\\?["']?[ \\t]*[:=]`],
    accept: acceptByName,
  },
  {
    kind: "secret_assignment",
    pattern: assignment(SECRET_NAME),
    screen: ["secret", "api[_-]?key", "credential", "private[_-]?key", "access[_-]?key"].map((k) => `${k}\\w*\\\\?["']?[ \\t]*[:=]`),
    accept: acceptByName,
  },
  {
    kind: "secret_assignment",
    // `token`, `GITHUB_TOKEN`, `token_value`; not `tokenizer` or `tokens` (a suffix needs a separator).
    pattern: assignment(ci("token"), "(?:[_-]\\w{0,29})?"),
    screen: [`token(?:[_-]\\w*)?\\\\?["']?[ \\t]*[:=]`],
    accept: acceptByName,
  },
  {
    kind: "secret_assignment",
    // A suffix needs a separator (`encryption_key_b64`), so `KeyStore:` or `authors:` never qualify.
    pattern: new RegExp(`${MAYBE_SECRET_NAME}(?:[_-]\\w{0,29})?${SEP}${VALUE}`, "g"),
    // `key(?<=[_a-z-]key)`: starts with a letter, so the pre-screen can group it with the other `k…` alternatives.
    screen: ["key(?<=[_a-z-]key)", "auth", "sig(?:nature)?"].map((k) => `${k}(?:[_-]\\w*)?\\\\?["']?[ \\t]*[:=]`),
    accept: (s) => looksRandom(s, 12),
  },
  {
    kind: "secret_near_name",
    // Prose: "the password is Xk9#mP2v…", "API token: 9fQ2…", "secret for staging zL0p…" — machine-random values only.
    pattern: new RegExp(
      `(?<![A-Za-z])(?:${ci("password")}|${ci("passwd")}|${ci("passphrase")}|${ci("secret")}|${ci("token")}|${ci("api")}[ _-]?${ci("key")}|${ci("credentials")}?)` +
        `(?:[ \\t]{1,4}(?:${ci("is")}|${ci("was")}|${ci("of")}|${ci("for")}|${ci("to")}|${ci("set")}|${ci("now")}|${ci("changed")}|[\\w.-]{1,20})){0,3}[ \\t]{0,4}[:=]?[ \\t]{0,4}["'\\x60]?(?<![\\w.-])(?<secret>[^\\s"'\\x60,;()<>\\[\\]{}]{12,200})`,
      "g",
    ),
    // The keyword, a space or sign, at most 85 more characters of words and signs, then the 12-character start of the value.
    screen: ["pass(?:word|wd|phrase)", "secret", "token", "api[ _-]?key", "credentials?"].map((k) => `${k}[ \\t:="'\\x60][^\\n]{0,85}?[^\\s"'\\x60,;()<>\\[\\]{}]{12}`),
    accept: (s) => looksRandom(s.replace(/[.:!?]+$/, ""), 12),
  },
];
