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
  /** Extra veto on a candidate secret (false = keep the text as is); `match` is the whole match. */
  accept?: (secret: string, match: string) => boolean;
}

// Any keyword followed by an assignment sign. The rest of the word is unbounded: the rule allows 30 word
// characters after the whole keyword ("password_…"), which is more than 30 after "pass".
const ASSIGNMENT_HINT = /(?:pass|pwd|secret|key|token)\w*["']?[ \t]*(?:=|:)/;

// The secret_assignment names, then an optional quote and an assignment sign.
const ASSIGNED_SECRET_HINT = /(?:secret\w*|[_-]key|password|passwd|token)["']?[ \t]*(?:=|:)/;

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

// Assigned values that are code, types or configuration words rather than credentials.
const CODE_WORDS = /^(?:lambda|self|this|function|new|await|async|return|os|process|str|int|bool|float|number|boolean|bytes|any|object|text|varchar|char|hidden|masked|omitted|unset|empty|default|auto|yes|no|on|off)$/i;

/**
 * Values assigned to a name that says "secret" (`*_secret*`, `*_key`,
 * `password`, `passwd`, `token`): anything that is not plainly code, a type,
 * a path, a small number or a snake_case identifier is a credential, also a
 * bare word (`password=correcthorse`).
 */
function looksLikeAssignedSecret(value: string, match = ""): boolean {
  const v = value.replace(/["']+$/, "");
  // "the password: remember to rotate it" is prose; `password=correcthorse` and `password: "hunter"` are not.
  if (/^[a-z]+$/.test(v) && /:[ \t]*$/.test(match.slice(0, match.lastIndexOf(value)))) return false;
  if (v.startsWith("[REDACTED:") || v.length < 6) return false;
  if (NOT_A_VALUE.test(v) || CODE_WORDS.test(v)) return false;
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(v)) return false;
  if (/^(?:\/|\.{1,2}\/|~\/)/.test(v)) return false;
  if (/^\d{1,12}(?:\.\d+)?$/.test(v)) return false;
  if (/^[a-z]+(?:_[a-z]+)+$/.test(v)) return false;
  return true;
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
    kind: "saas_token",
    // Prefixed tokens of common SaaS and cloud services (GitLab, npm, PyPI, Hugging Face, SendGrid, DigitalOcean,
    // Shopify, Mailgun, Databricks, Vault, Linear, Postman, Grafana, Groq, Replicate, Twilio API keys, Google OAuth).
    pattern:
      /\b(?:glpat-[A-Za-z0-9_-]{20,}|npm_[A-Za-z0-9]{36}|pypi-AgE[A-Za-z0-9_-]{50,}|hf_[A-Za-z0-9]{30,}|SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}|do[por]_v1_[a-f0-9]{64}|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}|key-[a-f0-9]{32}|dapi[a-f0-9]{32}|hv[sb]\.[A-Za-z0-9_-]{24,}|lin_api_[A-Za-z0-9]{40}|PMAK-[a-f0-9]{24}-[a-f0-9]{34}|glsa_[A-Za-z0-9]{32}_[a-f0-9]{8}|gsk_[A-Za-z0-9]{48,}|r8_[A-Za-z0-9]{37,}|SK[a-f0-9]{32}|ya29\.[A-Za-z0-9_-]{30,})/g,
    hint: has("glpat-", "npm_", "pypi-", "hf_", "SG.", "_v1_", "shp", "key-", "dapi", "hvs.", "hvb.", "lin_api_", "PMAK-", "glsa_", "gsk_", "r8_", "SK", "ya29."),
  },
  {
    kind: "azure_key",
    // Azure storage / service bus connection strings: `AccountKey=<base64>`, `SharedAccessKey=<base64>`.
    pattern: /\b(?:AccountKey|SharedAccessKey)=(?<secret>[A-Za-z0-9+/]{20,}={0,2})/g,
    hint: has("AccountKey=", "SharedAccessKey="),
  },
  {
    kind: "password_assignment",
    // Starts at the keyword (no lazy identifier prefix: that made every word boundary a backtracking start).
    pattern:
      /(?:password|passwd|pwd|passphrase|secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|refresh[_-]?token|client[_-]?secret|private[_-]?key)\w{0,30}["']?[ \t]*(?:=|:=|:|=>)[ \t]*["']?(?<secret>[^\s"',;)}\]]{4,})/gi,
    hint: (_text, lower) => ASSIGNMENT_HINT.test(lower),
    accept: looksLikeSecretValue,
  },
  {
    kind: "secret_assignment",
    // `aws_secret_access_key = …`, `client_secret: …`, `DB_PASSWORD=…`, `passwd: …`, `GITHUB_TOKEN=…`, `stripe_key=…`:
    // a name containing "secret" or ending in _key / password / passwd / token, then `=` or `:`.
    pattern:
      /(?:secret\w{0,30}|[_-]key|password|passwd|token)["']?[ \t]*(?:=|:=|:|=>)[ \t]*["']?(?<secret>[^\s"',;)}\]]{6,})/gi,
    hint: (_text, lower) => ASSIGNED_SECRET_HINT.test(lower),
    accept: looksLikeAssignedSecret,
  },
];
