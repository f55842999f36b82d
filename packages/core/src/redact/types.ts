/** Names of the built-in secret detectors; each becomes `[REDACTED:<kind>]` in text. */
export type BuiltinSecretKind =
  | "private_key"
  | "aws_access_key"
  | "aws_secret_key"
  | "aws_session_token"
  | "openai_key"
  | "anthropic_key"
  | "github_token"
  | "slack_token"
  | "google_api_key"
  | "stripe_key"
  | "jwt"
  | "bearer_token"
  | "url_password"
  | "signed_url"
  | "password_assignment"
  | "secret_assignment"
  | "password_flag"
  | "generic_api_key"
  | "saas_token"
  | "azure_key"
  | "docker_auth"
  | "session_cookie"
  | "secret_near_name"
  | "discord_token"
  | "telegram_bot_token"
  | "webhook_url"
  | "payment_token"
  | "cloud_token"
  | "registry_token"
  | "ci_token";

/**
 * One detector. `pattern` must be global; when it has a named group `secret`
 * only that group is replaced (it must be the last occurrence of its text in
 * the match), so the surrounding text ("Bearer ", "postgres://user:",
 * "password=") stays readable.
 */
export interface SecretRule {
  kind: string;
  pattern: RegExp;
  /**
   * What every match contains, as case-insensitive regex sources that each
   * start with a plain character (a letter, digit, `_`, `:`, `-`, `[`, `"` or
   * `'`). Texts none of them matches skip the rule; joined over all rules they
   * make the pre-screen, so they must be a superset of the pattern.
   */
  screen: readonly string[];
  /** Extra veto on a candidate secret (false = keep the text as is); `match` is the whole match. */
  accept?: (secret: string, match: string, groups?: Record<string, string | undefined>) => boolean;
}

/** A user-supplied detector: a JS regular expression (source) and the kind it reports. */
export interface CustomSecretRule {
  kind: string;
  pattern: string;
  flags?: string;
}

/** Which rules a redactor runs. Every field is optional; defaults: every built-in kind. */
export interface SecretRuleOptions {
  /** Built-in kinds to turn off. */
  disable?: readonly string[];
  /** Extra detectors. */
  extra?: readonly CustomSecretRule[];
  /** Exact strings never redacted (e.g. a known test token). */
  allow?: readonly string[];
}

export interface RedactionResult {
  text: string;
  /** Count per kind; empty when nothing was found. */
  found: Record<string, number>;
}
