export type { BuiltinSecretKind, CustomSecretRule, RedactionResult, SecretRule, SecretRuleOptions } from "./types.js";
export { BUILTIN_SECRET_KINDS, BUILTIN_SECRET_RULES } from "./rules.js";
export { buildSecretScreen, createSecretRedactor, factorByFirstChar, redactionMarker, redactSecrets, SECRET_SCREEN, type SecretRedactor } from "./redactor.js";
export { entropyPerChar, isBase64OfText, isPlaceholderOrCode, looksLikeAssignedSecret, looksRandom } from "./values.js";
