import type { BuiltinSecretKind } from "./types.js";

/**
 * One detector. `pattern` must be global; when it has a named group `secret`
 * only that group is replaced, so the surrounding text ("Bearer ",
 * "postgres://user:", "password=") stays readable.
 */
export interface SecretRule {
  kind: string;
  pattern: RegExp;
  /** Cheap pre-test on the text and its lower-cased copy: the rule is skipped when it cannot match. */
  hint: (text: string, lower: string) => boolean;
  /** Extra veto on a candidate secret (false = keep the text as is). */
  accept?: (secret: string) => boolean;
}

// Any keyword followed by an assignment sign. The rest of the word is unbounded: the rule allows 30 word
// characters after the whole keyword ("password_…"), which is more than 30 after "pass".
const ASSIGNMENT_HINT = /(?:pass|pwd|secret|key|token)\w*["']?[ \t]*(?:=|:)/;

const has = (...needles: string[]) => (text: string) => needles.some((n) => text.includes(n));
const hasI = (...needles: string[]) => (_text: string, lower: string) => needles.some((n) => lower.includes(n));

// Values that are code or placeholders, not secrets: calls, lookups, templates, masks.
const NOT_A_VALUE =
  /^(?:[A-Za-z_$][\w$]*(?:\.[\w$]+)*\s*[([]|\$|\{|<|%|\*{3,}|x{4,}$|\.{3}|(?:null|none|nil|true|false|undefined|required|optional|string|password|secret|example|changeme|redacted|env|getenv)\b)/i;

function looksLikeSecretValue(value: string): boolean {
  if (value.startsWith("[REDACTED:")) return false;
  if (value.length < 6) return false;
  if (NOT_A_VALUE.test(value)) return false;
  // A dotted reference (process.env.DB_PASSWORD, self.secret, cfg.api.key) is code, not a value.
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(value)) return false;
  // A bare lowercase word ("hunter", "secretvalue") is more often prose than a credential;
  // require a digit or a symbol or mixed case.
  return /[0-9]/.test(value) || /[^A-Za-z]/.test(value) || (/[a-z]/.test(value) && /[A-Z]/.test(value));
}

export const BUILTIN_RULES: ReadonlyArray<SecretRule & { kind: BuiltinSecretKind }> = [
  {
    kind: "private_key",
    // Up to the END line; a pasted key cut short is redacted up to where the base64 stops.
    pattern:
      /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[A-Za-z0-9+/=\s:,\-]|\\[nr])*?(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|(?=[^A-Za-z0-9+/=\s:,\-\\])|$)/g,
    hint: has("PRIVATE KEY"),
  },
  {
    kind: "anthropic_key",
    pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g,
    hint: has("sk-ant-"),
  },
  {
    kind: "openai_key",
    pattern: /\bsk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g,
    hint: has("sk-"),
  },
  {
    kind: "aws_access_key",
    pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g,
    hint: has("AKIA", "ASIA", "ABIA", "ACCA"),
  },
  {
    kind: "github_token",
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/g,
    hint: has("gh", "github_pat_"),
  },
  {
    kind: "slack_token",
    pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}|https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/]{20,}/g,
    hint: has("xox", "hooks.slack.com"),
  },
  {
    kind: "google_api_key",
    pattern: /\bAIza[0-9A-Za-z_-]{35}/g,
    hint: has("AIza"),
  },
  {
    kind: "stripe_key",
    pattern: /\b(?:sk|rk|pk|whsec)_(?:live|test)_[0-9A-Za-z]{16,}/g,
    hint: has("_live_", "_test_"),
  },
  {
    kind: "jwt",
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
    hint: has("eyJ"),
  },
  {
    kind: "bearer_token",
    pattern: /\b(?:[Bb]earer|[Tt]oken|[Bb]asic)\s+(?<secret>[A-Za-z0-9._~+/-]{16,}=*)/g,
    hint: has("earer", "oken", "asic"),
  },
  {
    kind: "url_password",
    pattern: /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/@"'<>]{1,100}:(?<secret>[^\s@/"'<>]{1,200})@/gi,
    hint: has("://"),
    accept: (s) => !s.startsWith("[REDACTED:") && !/^\$\{?\w+\}?$/.test(s),
  },
  {
    kind: "generic_api_key",
    // Header style: `X-Api-Key: abc…`, `api-key: …`.
    pattern: /\b(?:x-api-key|api-key|x-auth-token|x-access-token|private-token)\s*:\s*(?<secret>[^\s"',;]{8,})/gi,
    hint: hasI("api-key", "auth-token", "access-token", "private-token"),
    accept: looksLikeSecretValue,
  },
  {
    kind: "password_assignment",
    // Starts at the keyword (no lazy identifier prefix: that made every word boundary a backtracking start).
    pattern:
      /(?:password|passwd|pwd|passphrase|secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|refresh[_-]?token|client[_-]?secret|private[_-]?key)\w{0,30}["']?[ \t]*(?:=|:=|:|=>)[ \t]*["']?(?<secret>[^\s"',;)}\]]{4,})/gi,
    hint: (_text, lower) => ASSIGNMENT_HINT.test(lower),
    accept: looksLikeSecretValue,
  },
];
