/** Names of the built-in secret detectors; each becomes `[REDACTED:<kind>]` in text. */
export type BuiltinSecretKind =
  | "private_key"
  | "aws_access_key"
  | "openai_key"
  | "anthropic_key"
  | "github_token"
  | "slack_token"
  | "google_api_key"
  | "stripe_key"
  | "jwt"
  | "bearer_token"
  | "url_password"
  | "password_assignment"
  | "secret_assignment"
  | "generic_api_key"
  | "saas_token"
  | "azure_key";

/** A user-supplied detector: a JS regular expression (source) and the kind it reports. */
export interface CustomSecretRule {
  kind: string;
  pattern: string;
  flags?: string;
}

/** How redaction behaves. Every field is optional; defaults: on, every built-in kind. */
export interface RedactionConfig {
  enabled?: boolean;
  /** Built-in kinds to turn off. */
  disable?: readonly BuiltinSecretKind[];
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

/** A compiled redactor. `redactText` is pure and fast on text with no candidates. */
export interface Redactor {
  readonly enabled: boolean;
  redactText(text: string): RedactionResult;
  /**
   * The pre-screen it runs first, when it has one: `redactText` returns a text this regex does not
   * match unchanged, so a caller may test texts with it elsewhere (another thread) and skip them.
   */
  readonly screen?: RegExp;
}
