import { ASSIGNMENT_RULES } from "./rules-assignments.js";
import { PROVIDER_RULES } from "./rules-providers.js";
import { STRUCTURED_RULES } from "./rules-structured.js";
import { TOKEN_RULES } from "./rules-tokens.js";
import type { BuiltinSecretKind, SecretRule } from "./types.js";

/**
 * Every built-in detector, in the order they run: shapes first (so a known
 * token is reported by its own kind), then structures, then names. A value
 * an earlier rule replaced is never matched again (markers are skipped).
 */
export const BUILTIN_SECRET_RULES: ReadonlyArray<SecretRule & { kind: BuiltinSecretKind }> = [
  ...TOKEN_RULES,
  ...PROVIDER_RULES,
  ...STRUCTURED_RULES,
  ...ASSIGNMENT_RULES,
] as ReadonlyArray<SecretRule & { kind: BuiltinSecretKind }>;

/** The built-in kinds, each once, for configuration schemas. */
export const BUILTIN_SECRET_KINDS: readonly BuiltinSecretKind[] = [...new Set(BUILTIN_SECRET_RULES.map((r) => r.kind))];
