import type { ChatModel, ChatModelRequest, ChatModelResponse, ContextEngine, Logger, TokenCounter } from "@context-engine/core";
import type { EngineFigures } from "./compaction/engine-figures.js";
import type { MessageClock } from "./session/message-clock.js";
import type { HostConfig } from "./config.js";
import type { HookBreakers } from "./session/hook-breaker.js";
import type { EventBus } from "./event-bus.js";
import type { StreamDelta } from "./provider/stream.js";
import type { FunctionTool, ToolExecutor } from "./tools.js";

/**
 * A ChatModel that can also make a single attempt with no retries of its own.
 * The host owns retries for agent requests (each retry re-assembles the
 * request and re-runs `selectContext`), so it prefers `completeOnce`.
 */
export interface RetryAwareChatModel extends ChatModel {
  completeOnce(request: ChatModelRequest): Promise<ChatModelResponse>;
}

export function hasCompleteOnce(model: ChatModel): model is RetryAwareChatModel {
  return typeof (model as Partial<RetryAwareChatModel>).completeOnce === "function";
}

/**
 * A ChatModel that can stream one attempt, reporting text and tool-call
 * progress as it arrives. The host streams when someone listens to
 * `provider.delta` events.
 */
export interface StreamingChatModel extends ChatModel {
  completeStream(request: ChatModelRequest, onDelta: (delta: StreamDelta) => void): Promise<ChatModelResponse>;
}

export function hasCompleteStream(model: ChatModel): model is StreamingChatModel {
  return typeof (model as Partial<StreamingChatModel>).completeStream === "function";
}

/** What every session of one host shares. */
export interface HostRuntime {
  engine: ContextEngine;
  chatModel: ChatModel;
  bus: EventBus;
  logger: Logger;
  counter: TokenCounter;
  config: HostConfig;
  agentTools: FunctionTool[];
  executeTool: ToolExecutor | undefined;
  /** The engine's public figures and who last wrote them legitimately (see EngineFigures). */
  figures: EngineFigures;
  /**
   * Session ids with a compression pass inside the engine, including a pass
   * the host gave up on that has not settled yet: one pass per session.
   */
  compacting: Set<string>;
  /** When each message was said (`messageTimes` for the engine's hooks). */
  clock: MessageClock;
  /** Per-session breakers for hooks that time out (see HookBreaker). */
  hookBreakers: HookBreakers;
}
