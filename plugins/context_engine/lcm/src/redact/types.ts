import type { BuiltinSecretKind, CustomSecretRule, RedactionResult } from "@context-engine/core";

/** The built-in detector names and result shape come from `@context-engine/core`, shared with the compressor. */
export type { BuiltinSecretKind, CustomSecretRule, RedactionResult };

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
