// Vitest-free entry point: fixtures and the fake ChatModel for any code.
export { fixtures, allFixtures, type FixtureName } from "./fixtures/conversations.js";
export { CODING_TOOLS } from "./fixtures/coding-session.js";
export { loadRecordedFixtures, RECORDED_FIXTURES } from "./fixtures/real-data.js";
export {
  createFakeChatModel,
  extractIdentifiers,
  fakeSummary,
  type FakeChatModel,
  type FakeChatModelMode,
  type FakeChatModelOptions,
} from "./fixtures/fake-chat-model.js";
export { cloneMessages, deepFreeze } from "./fixtures/clone.js";
export type { ConversationFixture, FixtureOrigin } from "./fixtures/types.js";
