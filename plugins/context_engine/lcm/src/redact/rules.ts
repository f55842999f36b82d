import { BUILTIN_SECRET_RULES, type SecretRule } from "@context-engine/core";

/**
 * The detectors are the secret families of `@context-engine/core` (one set
 * for every engine); LCM adds configuration, the pre-screen thread and deep
 * redaction of stored messages on top.
 */
export type { SecretRule };
export const BUILTIN_RULES = BUILTIN_SECRET_RULES;
