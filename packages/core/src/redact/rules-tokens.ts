import { TOKEN_START } from "./rules-providers.js";
import type { SecretRule } from "./types.js";

/**
 * Secrets recognisable by their own shape: fixed prefixes of cloud and SaaS
 * credentials, private key blocks, JWTs. They are caught wherever they occur,
 * with or without a name next to them.
 */

/** Base64 alphabet (standard and URL-safe) without padding. */
const B64 = "A-Za-z0-9+/";

const SHAPE_RULES: readonly SecretRule[] = [
  {
    kind: "private_key",
    // Up to the END line; a pasted key cut short is redacted up to where the base64 stops.
    pattern:
      /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[A-Za-z0-9+/=\s:,-]|\\[nr])*?(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|(?=[^A-Za-z0-9+/=\s:,\\-])|$)/g,
    screen: ["PRIVATE KEY"],
  },
  {
    kind: "anthropic_key",
    pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g,
    screen: ["sk-ant-"],
  },
  {
    kind: "openai_key",
    pattern: /\bsk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g,
    screen: ["sk-[A-Za-z0-9_-]{20}"],
  },
  {
    kind: "aws_session_token",
    // STS session tokens (and the older security tokens) begin with these encoded headers.
    pattern: new RegExp(`(?<![${B64}])(?:IQoJb3JpZ2lu|FwoGZXIvYXdz|FQoGZXIvYXdz)[${B64}]{20,}={0,2}`, "g"),
    screen: ["IQoJb3JpZ2lu", "FwoGZXIvYXdz", "FQoGZXIvYXdz"],
  },
  {
    kind: "aws_secret_key",
    // 40 base64 characters, mixed case with a digit or symbol (so a 40-hex git hash never qualifies), within
    // 300 characters of an access key id (or where one was already redacted).
    pattern: new RegExp(
      `(?<![${B64}=])(?=[${B64}]{0,39}[a-z])(?=[${B64}]{0,39}[A-Z])(?=[${B64}]{0,39}[0-9/+])[${B64}]{40}(?![${B64}=])` +
        `(?:(?=[\\s\\S]{1,300}?(?:\\b(?:AKIA|ASIA)[0-9A-Z]{16}\\b|\\[REDACTED:aws_access_key\\]))|(?<=(?:\\b(?:AKIA|ASIA)[0-9A-Z]{16}\\b|\\[REDACTED:aws_access_key\\])[\\s\\S]{1,300}))`,
      "g",
    ),
    screen: ["AKIA", "ASIA", "REDACTED:aws_access_key"],
  },
  {
    kind: "aws_access_key",
    pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g,
    screen: ["AKIA", "ASIA", "ABIA", "ACCA"],
  },
  {
    kind: "github_token",
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/g,
    screen: ["gh[pousr]_", "github_pat_"],
  },
  {
    kind: "slack_token",
    pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}|https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/]{20,}/g,
    screen: ["xox", "hooks\\.slack"],
  },
  {
    kind: "google_api_key",
    pattern: /\bAIza[0-9A-Za-z_-]{35}/g,
    screen: ["AIza"],
  },
  {
    kind: "stripe_key",
    pattern: /\b(?:sk|rk|pk|whsec)_(?:live|test)_[0-9A-Za-z]{16,}/g,
    screen: ["_live_", "_test_"],
  },
  {
    kind: "jwt",
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
    screen: ["eyJ"],
  },
  {
    kind: "saas_token",
    // Prefixed tokens of common SaaS and cloud services (GitLab, npm, PyPI, Hugging Face, SendGrid, DigitalOcean,
    // Shopify, Mailgun, Databricks, Vault, Linear, Postman, Grafana, Groq, Replicate, Twilio API keys, Google OAuth).
    pattern:
      /\b(?:glpat-[A-Za-z0-9_-]{20,}|npm_[A-Za-z0-9]{36}|pypi-AgE[A-Za-z0-9_-]{50,}|hf_[A-Za-z0-9]{30,}|SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}|do[por]_v1_[a-f0-9]{64}|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}|key-[a-f0-9]{32}|dapi[a-f0-9]{32}|hv[sb]\.[A-Za-z0-9_-]{24,}|lin_api_[A-Za-z0-9]{40}|PMAK-[a-f0-9]{24}-[a-f0-9]{34}|glsa_[A-Za-z0-9]{32}_[a-f0-9]{8}|gsk_[A-Za-z0-9]{48,}|r8_[A-Za-z0-9]{37,}|SK[a-f0-9]{32}|ya29\.[A-Za-z0-9_-]{30,})/g,
    screen: ["glpat-", "npm_", "pypi-", "hf_", "SG\\.", "_v1_", "shp", "key-", "dapi", "hv[sb]\\.", "lin_api_", "PMAK-", "glsa_", "gsk_", "r8_", "sk[a-f0-9]{32}", "ya29\\."],
  },
];

/**
 * A `\b` before a token's first letter is also satisfied right after a JSON or shell escape (`\n`, `\t`,
 * `\r`): tool-call arguments are JSON, and `"…\nghp_…"` has no word boundary before the token.
 */
function startAfterEscapes(rule: SecretRule): SecretRule {
  const source = rule.pattern.source.replace(/\\b(?=\(\?:|[A-Za-z])/g, TOKEN_START);
  return { ...rule, pattern: new RegExp(source, rule.pattern.flags) };
}

export const TOKEN_RULES: readonly SecretRule[] = SHAPE_RULES.map(startAfterEscapes);
