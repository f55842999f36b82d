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
  /**
   * What the request's estimate (messages and tool schemas) may reach: the window minus the output
   * reserve (0: unknown). A selection that does not fit it falls open to the unselected request.
   */
  requestLimit?: number;
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
  let appliedMs = 0;

  // Identity check: an inherited no-op is never called and costs nothing.
  if (overridesHook(runtime.engine, "selectContext")) {
    const outcome = await runSelection({ runtime, sessionId, turnId, requestMessages: messages, conversation: input.conversation, incoming: input.incoming, budgetTokens: inputBudgetOf(input) });
    if (outcome.kind === "applied") {
      selection = "applied";
      appliedMs = outcome.durationMs;
      messages = outcome.messages;
    } else {
      selection = "ignored";
      if (outcome.failure) {
        reportHookFailure(runtime, sessionId, turnId, "selectContext", new Error(outcome.reason), outcome.failure);
      }
      runtime.bus.emit({ type: "selection.ignored", sessionId, turnId, requestIndex, reason: outcome.reason, durationMs: outcome.durationMs });
    }
  }

  const built = finish(input, messages);
  const window = input.requestLimit ?? 0;
  if (selection === "applied" && window > 0 && built.estimatedTokens > window) {
    // The engine's list is larger than what it replaced could be sent as: fail open, never fail the turn for it.
    const plain = finish(input, input.conversation);
    const reason = `the selection does not fit the context window (~${built.estimatedTokens} > ${window} tokens); sending the unselected request`;
    runtime.logger.warn(`context engine selectContext: ${reason}`, { sessionId });
    reportHookFailure(runtime, sessionId, turnId, "selectContext", new Error(reason), "invalid_result");
    runtime.bus.emit({ type: "selection.ignored", sessionId, turnId, requestIndex, reason, durationMs: appliedMs });
    return { ...plain, selection: "ignored" };
  }
  if (selection === "applied") {
    runtime.bus.emit({
      type: "selection.applied",
      sessionId,
      turnId,
      requestIndex,
      messagesBefore: input.conversation.length,
      messagesAfter: messages.length,
      durationMs: appliedMs,
    });
  }
  return { ...built, selection };
}

/** What the engine's messages may take: the request limit less the tool schemas; 0 when unknown. */
function inputBudgetOf(input: AssembleInput): number {
  const limit = input.requestLimit ?? 0;
  return limit > 0 ? Math.max(1, limit - input.toolsTokens) : 0;
}

/** Sanitisers, then cache breakpoints on the final list, then the estimate. */
function finish(input: AssembleInput, selected: Message[]): Omit<AssembledRequest, "selection"> {
  const { runtime, sessionId } = input;
  let messages = selected;
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
  return { messages, estimatedTokens, repairs: sanitized.repairs, cacheBreakpoints };
}
