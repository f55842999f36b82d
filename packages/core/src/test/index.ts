// `@context-engine/core/test`: test helpers for engine authors (no network, deterministic).
export {
  createScriptedChatModel,
  extractIdentifiers,
  scriptedSummary,
  type ScriptedChatModel,
  type ScriptedChatModelMode,
  type ScriptedChatModelOptions,
  type ScriptStep,
} from "./scripted-chat-model.js";
// Invented credentials in transcript shapes, and look-alikes that must survive: for testing redaction.
export { NOT_SECRETS, SECRET_CORPUS } from "./secret-corpus.js";
