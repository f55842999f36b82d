// Vitest-free entry point: fixtures and the scripted ChatModel for any code.
export { fixtures, allFixtures, type FixtureName } from "./fixtures/conversations.js";
export { CODING_TOOLS } from "./fixtures/coding-session.js";
export {
  createScriptedChatModel,
  /** @deprecated use `createScriptedChatModel` from `@context-engine/core/test`. */
  createScriptedChatModel as createFakeChatModel,
  extractIdentifiers,
  scriptedSummary,
  scriptedSummary as fakeSummary,
  type ScriptedChatModel,
  type ScriptedChatModel as FakeChatModel,
  type ScriptedChatModelMode,
  type ScriptedChatModelMode as FakeChatModelMode,
  type ScriptedChatModelOptions,
  type ScriptedChatModelOptions as FakeChatModelOptions,
} from "@context-engine/core/test";
export { cloneMessages, deepFreeze } from "./fixtures/clone.js";
export type { ConversationFixture, FixtureOrigin } from "./fixtures/types.js";
