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
