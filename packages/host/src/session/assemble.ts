import { overridesHook } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { applyCacheBreakpoints } from "../request/cache-breakpoints.js";
import { sanitizeRequestMessages } from "../request/sanitize.js";
import { runSelection } from "../request/selection.js";
import type { HostRuntime } from "../runtime.js";
import { reportHookFailure } from "./engine-calls.js";

export interface AssembledRequest {
  /** The final list to send. */
  messages: Message[];
  estimatedTokens: number;
  selection: "applied" | "ignored" | "not_implemented";
  repairs: string[];
  cacheBreakpoints: number;
}

export interface AssembleInput {
  runtime: HostRuntime;
  sessionId: string;
  turnId: string;
  requestIndex: number;
  /** The persisted conversation (never modified here). */
  conversation: Message[];
  /** The message that started this turn, or null. */
  incoming: Message | null;
  toolsTokens: number;
  promptCache: boolean;
}

/**
 * Build one provider request in the contract's order: the conversation →
 * `selectContext` (only when the engine overrides it) → sanitisers → cache
 * breakpoints on the final list. Called again for every retry, so a
 * selection is never reused or persisted.
 */
export async function assembleRequest(input: AssembleInput): Promise<AssembledRequest> {
  const { runtime, sessionId, turnId, requestIndex } = input;
  let messages = input.conversation;
  let selection: AssembledRequest["selection"] = "not_implemented";

  // Identity check: an inherited no-op is never called and costs nothing.
  if (overridesHook(runtime.engine, "selectContext")) {
    const outcome = await runSelection({ runtime, sessionId, turnId, requestMessages: messages, conversation: input.conversation, incoming: input.incoming });
    if (outcome.kind === "applied") {
      selection = "applied";
      runtime.bus.emit({
        type: "selection.applied",
        sessionId,
        turnId,
        requestIndex,
        messagesBefore: messages.length,
        messagesAfter: outcome.messages.length,
        durationMs: outcome.durationMs,
      });
      messages = outcome.messages;
    } else {
      selection = "ignored";
      if (outcome.failure) {
        reportHookFailure(runtime, sessionId, turnId, "selectContext", new Error(outcome.reason), outcome.failure);
      }
      runtime.bus.emit({ type: "selection.ignored", sessionId, turnId, requestIndex, reason: outcome.reason, durationMs: outcome.durationMs });
    }
  }

  const sanitized = sanitizeRequestMessages(messages);
  messages = sanitized.messages;
  if (sanitized.repairs.length > 0) {
    runtime.logger.debug("request sanitised", { sessionId, repairs: sanitized.repairs });
  }

  let cacheBreakpoints = 0;
  if (input.promptCache) {
    const cached = applyCacheBreakpoints(messages);
    messages = cached.messages;
    cacheBreakpoints = cached.count;
  }

  const estimatedTokens = runtime.counter.countMessages(messages) + input.toolsTokens;
  return { messages, estimatedTokens, selection, repairs: sanitized.repairs, cacheBreakpoints };
}
