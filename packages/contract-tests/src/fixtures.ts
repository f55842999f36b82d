// Vitest-free entry point: fixtures and the scripted ChatModel for any code.
import { createScriptedChatModel, scriptedSummary, type ScriptedChatModel, type ScriptedChatModelMode, type ScriptedChatModelOptions } from "@context-engine/core/test";

export { fixtures, allFixtures, type FixtureName } from "./fixtures/conversations.js";
export { CODING_TOOLS } from "./fixtures/coding-session.js";
export { createScriptedChatModel, extractIdentifiers, scriptedSummary } from "@context-engine/core/test";
export type { ScriptedChatModel, ScriptedChatModelMode, ScriptedChatModelOptions, ScriptStep } from "@context-engine/core/test";
export { cloneMessages, deepFreeze } from "./fixtures/clone.js";
export type { ConversationFixture, FixtureOrigin } from "./fixtures/types.js";

// Earlier names, kept so existing tests compile; prefer the scripted names from `@context-engine/core/test`.
/** @deprecated use `createScriptedChatModel` from `@context-engine/core/test`. */
export const createFakeChatModel: typeof createScriptedChatModel = createScriptedChatModel;
/** @deprecated use `scriptedSummary` from `@context-engine/core/test`. */
export const fakeSummary: typeof scriptedSummary = scriptedSummary;
/** @deprecated use `ScriptedChatModel`. */
export type FakeChatModel = ScriptedChatModel;
/** @deprecated use `ScriptedChatModelMode`. */
export type FakeChatModelMode = ScriptedChatModelMode;
/** @deprecated use `ScriptedChatModelOptions`. */
export type FakeChatModelOptions = ScriptedChatModelOptions;
