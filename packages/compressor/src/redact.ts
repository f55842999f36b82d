/**
 * Masks credential-shaped strings before text leaves the transcript (into a
 * summariser prompt or a summary). Deliberately conservative: it targets
 * well-known key shapes and `key=value` assignments, not arbitrary long tokens,
 * so identifiers and hashes the summary must keep survive.
 */
const PATTERNS: Array<[RegExp, string]> = [
  [/\b(sk|pk|rk)-(?:proj-|live-|test-|ant-)?[A-Za-z0-9_-]{20,}/g, "[REDACTED]"],
  [/\bgh[pousr]_[A-Za-z0-9]{30,}/g, "[REDACTED]"],
  [/\bgithub_pat_[A-Za-z0-9_]{30,}/g, "[REDACTED]"],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, "[REDACTED]"],
  [/\bAKIA[0-9A-Z]{16}\b/g, "[REDACTED]"],
  [/\bAIza[0-9A-Za-z_-]{35}\b/g, "[REDACTED]"],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{16,}/g, "$1 [REDACTED]"],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g, "[REDACTED PRIVATE KEY]"],
  [
    /\b((?:api[_-]?key|secret|password|passwd|token|access[_-]?key|client[_-]?secret)["']?\s*[:=]\s*["']?)([^\s"',;]{8,})/gi,
    "$1[REDACTED]",
  ],
];

// Cheap pre-check so the common case (no secrets) costs one scan.
const MAYBE_SECRET = /sk-|pk-|rk-|gh[pousr]_|github_pat_|xox|AKIA|AIza|Bearer|Basic|PRIVATE KEY|key|secret|pass|token/i;

export function redactSecrets(text: string): string {
  if (!text || !MAYBE_SECRET.test(text)) return text;
  let out = text;
  for (const [re, replacement] of PATTERNS) out = out.replace(re, replacement);
  return out;
}
