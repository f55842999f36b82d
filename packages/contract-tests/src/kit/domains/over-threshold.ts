import type { ChatModel, ContextEngine, Message } from "@context-engine/core";
import { createScriptedChatModel } from "@context-engine/core/test";
import { cloneMessages } from "../../fixtures/clone.js";
import { fixtures } from "../../fixtures/conversations.js";
import type { Harness } from "../harness.js";
import { newSessionId, startSession, usageFor } from "../session.js";
import { countTokens } from "../util.js";

export interface OverThreshold {
  engine: ContextEngine;
  sessionId: string;
  messages: Message[];
  /** The kit's count of `messages`, well over the engine's threshold. */
  tokens: number;
}

/**
 * A fresh engine on the small compaction window, in a started session, holding the coding session
 * (well over its threshold). `figure` replaces the prompt size reported through `updateFromResponse`.
 */
export async function overThreshold(
  h: Harness,
  options: { dataDir?: string; chatModel?: ChatModel; figure?: number } = {},
): Promise<OverThreshold> {
  const { dataDir, chatModel = createScriptedChatModel(), figure } = options;
  const engine = await h.create({ contextLength: h.compactionContextLength, chatModel, ...(dataDir ? { dataDir } : {}) });
  const sessionId = newSessionId("rules");
  await startSession(h, engine, sessionId, dataDir);
  const messages = cloneMessages(fixtures.codingSession.messages);
  const usage = usageFor(messages);
  engine.updateFromResponse(figure === undefined ? usage : { ...usage, prompt_tokens: figure, total_tokens: figure + usage.completion_tokens });
  return { engine, sessionId, messages, tokens: countTokens(messages) };
}
