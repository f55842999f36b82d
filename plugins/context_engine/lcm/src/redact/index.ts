export type { BuiltinSecretKind, CustomSecretRule, RedactionConfig, RedactionResult, Redactor } from "./types.js";
export { createRedactor, redactDeep, redactionMarker } from "./redactor.js";
export { RedactionConfigSchema, toRedactionConfig } from "./config.js";
export { BUILTIN_RULES } from "./rules.js";
