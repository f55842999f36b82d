/**
 * Masks credential-shaped strings before text leaves the transcript (into a
 * summariser prompt or a summary). It targets well-known key shapes of cloud
 * and SaaS services and assignments to names that say "secret" (`*_secret*`,
 * `*_key`, `password`, `passwd`, `token` followed by `=` or `:`), not
 * arbitrary long tokens, so identifiers and hashes the summary must keep
 * survive.
 */
const KEY_SHAPES: RegExp[] = [
  /\bsk-(?:proj-|svcacct-|admin-|ant-(?:api\d\d-)?)?[A-Za-z0-9_-]{20,}/g,
  /\b(?:sk|rk|pk|whsec)_(?:live|test)_[0-9A-Za-z]{16,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{30,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{22,}/g,
  /\bglpat-[A-Za-z0-9_-]{20,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/]{20,}/g,
  /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{35}/g,
  /\bya29\.[A-Za-z0-9_-]{30,}/g,
  /\bnpm_[A-Za-z0-9]{36}\b/g,
  /\bpypi-AgE[A-Za-z0-9_-]{50,}/g,
  /\bhf_[A-Za-z0-9]{30,}/g,
  /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}/g,
  /\bdo[por]_v1_[a-f0-9]{64}\b/g,
  /\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b/g,
  /\bkey-[a-f0-9]{32}\b/g,
  /\bdapi[a-f0-9]{32}\b/g,
  /\bhv[sb]\.[A-Za-z0-9_-]{24,}/g,
  /\blin_api_[A-Za-z0-9]{40}\b/g,
  /\bgsk_[A-Za-z0-9]{48,}/g,
  /\br8_[A-Za-z0-9]{37,}/g,
  /\bSK[a-f0-9]{32}\b/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];

const PRIVATE_KEY = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g;
const AUTH_HEADER = /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/-]{16,}=*/g;
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/@"'<>]{1,100}:)([^\s@/"'<>]{1,200})@/gi;
const AZURE_KEY = /\b((?:AccountKey|SharedAccessKey)=)[A-Za-z0-9+/]{20,}={0,2}/g;
/**
 * A name containing "secret", or ending in _key / password / passwd / pwd /
 * token, then `=` or `:`. It starts at the keyword (no leading `\w*`, which
 * would make every position of a long word a backtracking start); the rest of
 * the name stays in the text anyway.
 */
const ASSIGNMENT =
  /((?:secret[\w-]{0,30}|[_-](?:key|pwd)|pass(?:word|wd|phrase)|token|apikey)["']?[ \t]*(?:=|:=|:|=>)[ \t]*["']?)([^\s"',;)}\]]{6,})/gi;

// Values that are code, types, placeholders or paths, not credentials.
const NOT_A_VALUE =
  /^(?:[A-Za-z_$][\w$]*(?:\.[\w$]+)*\s*[([]|\$|\{|<|%|\*{3,}|x{4,}$|\.{3}|\[REDACTED|(?:null|none|nil|true|false|undefined|required|optional|string|password|secret|example|changeme|redacted|env|getenv|lambda|self|this|function|process|number|boolean|object|hidden|masked|default)\b)/i;

function looksLikeAssignedSecret(value: string, head: string): boolean {
  if (NOT_A_VALUE.test(value)) return false;
  // "the password: remember to rotate it" is prose; `password=correcthorse` and `password: "hunter"` are not.
  if (/^[a-z]+$/.test(value) && /:[ \t]*$/.test(head)) return false;
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(value)) return false; // process.env.X, self.token
  if (/^(?:\/|\.{1,2}\/|~\/)/.test(value)) return false; // a path
  if (/^\d{1,12}(?:\.\d+)?$/.test(value)) return false; // max_tokens: 4096
  if (/^[a-z]+(?:_[a-z]+)+$/.test(value)) return false; // partition_key: customer_id
  return true;
}

// Cheap pre-check so the common case (no secrets) costs one scan.
const MAYBE_SECRET =
  /sk-|_live_|_test_|gh[pousr]_|github_pat_|glpat-|xox|hooks\.slack|AKIA|ASIA|ABIA|ACCA|AIza|ya29\.|npm_|pypi-|hf_|SG\.|_v1_|shp|key|dapi|hv[sb]\.|lin_api_|gsk_|r8_|SK[a-f0-9]|eyJ|Bearer|Basic|Token|PRIVATE KEY|:\/\/|secret|pass|pwd/i;

export function redactSecrets(text: string): string {
  if (!text || !MAYBE_SECRET.test(text)) return text;
  let out = text.replace(PRIVATE_KEY, "[REDACTED PRIVATE KEY]");
  for (const re of KEY_SHAPES) out = out.replace(re, "[REDACTED]");
  out = out.replace(AUTH_HEADER, "$1 [REDACTED]");
  out = out.replace(URL_PASSWORD, (match, head: string, secret: string) => (/^\$\{?\w+\}?$/.test(secret) ? match : `${head}[REDACTED]@`));
  out = out.replace(AZURE_KEY, "$1[REDACTED]");
  out = out.replace(ASSIGNMENT, (match, head: string, value: string) => (looksLikeAssignedSecret(value, head) ? `${head}[REDACTED]` : match));
  return out;
}
