import { normalizeUsage } from "@context-engine/core";
import type { ChatModel, ChatModelError, ChatModelResponse } from "@context-engine/core";
import { ContextBudgetExceededError } from "../../errors.js";
import { isRetryable, retryAfterMsOf, toChatModelError } from "../../provider/errors.js";
import { backoffMs, sleep } from "../../provider/retry.js";
import { hasCompleteOnce, hasCompleteStream } from "../../runtime.js";
import type { AssembledRequest } from "../assemble.js";
import { assembleRequest } from "../assemble.js";
import { callHookSync } from "../engine-calls.js";
import { addUsage, validateResponse } from "../response.js";
import { canCompact, canCompactOverWindow, compact, shouldCompress } from "./gates.js";
import { endTurn } from "./state.js";
import type { TurnState } from "./state.js";

/** What one attempt led to: an answer, another attempt, or the end of the turn. */
type Attempt = { kind: "answer"; response: ChatModelResponse } | { kind: "again" } | { kind: "stop" };

interface StepState {
  retry: number;
  overWindowTried: boolean;
}

/**
 * One model step of the tool loop: assemble the request (selection re-run
 * each attempt), the pre-API and window gates, the provider call, and the
 * retries. Returns the answer, or null when the turn ended on the way.
 */
export async function requestResponse(state: TurnState): Promise<ChatModelResponse | null> {
  const step: StepState = { retry: 0, overWindowTried: false };
  while (true) {
    const attempt = await attemptOnce(state, step);
    if (attempt.kind === "answer") return attempt.response;
    if (attempt.kind === "stop") return null;
  }
}

async function attemptOnce(state: TurnState, step: StepState): Promise<Attempt> {
  const { session, turnId, signal } = state;
  const { runtime } = session;
  if (signal?.aborted) {
    endTurn(state, "interrupted", "interrupted");
    return { kind: "stop" };
  }
  state.requestIndex++;
  const request = await assembleRequest({
    runtime,
    sessionId: session.id,
    turnId,
    requestIndex: state.requestIndex,
    conversation: session.messages,
    incoming: state.incoming,
    toolsTokens: session.toolsTokens,
    promptCache: session.promptCache,
    requestLimit: session.requestLimit,
  });

  // Pre-API gate: compact when over threshold (skipped when the turn-start
  // check already looked at this very conversation).
  if (!state.checkedClean && canCompact(state) && shouldCompress(state, request.estimatedTokens)) {
    const outcome = await compact(state, "pre_api", request.estimatedTokens, false);
    if (outcome.status === "committed") return { kind: "again" };
  }
  state.checkedClean = false;

  const window = await windowGate(state, step, request);
  if (window) return window;

  emitRequest(state, step, request);
  state.apiCalls++;
  const sentAt = performance.now();
  try {
    const raw = await completeFor(state)({
      messages: request.messages,
      model: session.model,
      ...(session.outputReserveTokens > 0 ? { maxTokens: session.outputReserveTokens } : {}),
      ...(session.tools.length > 0 ? { tools: session.tools as Array<Record<string, unknown>> } : {}),
      ...(signal ? { signal } : {}),
    });
    const response = validateResponse(raw);
    recordResponse(state, response, performance.now() - sentAt);
    return { kind: "answer", response };
  } catch (thrown) {
    return handleProviderError(state, step, request, toChatModelError(thrown, signal));
  }
}

/** A request that cannot fit the window is never sent: one forced pass, then the turn fails. */
async function windowGate(state: TurnState, step: StepState, request: AssembledRequest): Promise<Attempt | null> {
  const { session, turnId } = state;
  const limit = session.requestLimit;
  if (!(limit > 0 && request.estimatedTokens > limit)) return null;
  if (!step.overWindowTried && canCompactOverWindow(state)) {
    step.overWindowTried = true;
    const outcome = await compact(state, "over_window", request.estimatedTokens, true);
    if (outcome.status === "committed") return { kind: "again" };
  }
  const tried = state.compactions > 0 || state.compactionAttempts > 0;
  const err = new ContextBudgetExceededError(request.estimatedTokens, session.contextLength, tried, session.contextLength - limit);
  const { bus, logger } = session.runtime;
  bus.emit({ type: "request.over_budget", sessionId: session.id, turnId, error: err, estimatedTokens: err.estimatedTokens, contextLength: err.contextLength });
  logger.error(err.message, { sessionId: session.id });
  endTurn(state, "failed", "context_budget_exceeded", err);
  return { kind: "stop" };
}

function emitRequest(state: TurnState, step: StepState, request: AssembledRequest): void {
  const { session } = state;
  const { bus } = session.runtime;
  if (!bus.wants("provider.request")) return;
  bus.emit({
    type: "provider.request",
    sessionId: session.id,
    turnId: state.turnId,
    requestIndex: state.requestIndex,
    attempt: step.retry,
    model: session.model,
    // The live list may grow after this event; hand listeners a stable copy.
    messages: request.messages === session.messages ? request.messages.slice() : request.messages,
    tools: session.tools,
    estimatedTokens: request.estimatedTokens,
    selection: request.selection,
    repairs: request.repairs,
    cacheBreakpoints: request.cacheBreakpoints,
  });
}

/**
 * The host owns retries, so it prefers a single-attempt call when the model
 * offers one; it streams when the model can and a listener subscribed to
 * `provider.delta` by name (`host.on("provider.delta", …)`).
 */
function completeFor(state: TurnState): ChatModel["complete"] {
  const { chatModel: model, bus } = state.session.runtime;
  if (hasCompleteStream(model) && bus.subscribed("provider.delta")) {
    const { session, turnId } = state;
    const requestIndex = state.requestIndex;
    return (request) =>
      model.completeStream(request, (delta) => bus.emit({ type: "provider.delta", sessionId: session.id, turnId, requestIndex, delta }));
  }
  return hasCompleteOnce(model) ? model.completeOnce.bind(model) : model.complete.bind(model);
}

function recordResponse(state: TurnState, response: ChatModelResponse, durationMs: number): void {
  const { session, turnId } = state;
  const { runtime } = session;
  const engine = runtime.engine;
  const usage = response.usage ? normalizeUsage(response.usage) : null;
  runtime.bus.emit({
    type: "provider.response",
    sessionId: session.id,
    turnId,
    requestIndex: state.requestIndex,
    message: response.message,
    usage,
    finishReason: response.finishReason ?? null,
    durationMs,
  });
  if (usage) {
    state.lastUsage = usage;
    state.totalUsage = addUsage(state.totalUsage, usage);
    if (usage.prompt_tokens > 0) session.lastPromptTokens = usage.prompt_tokens;
    callHookSync(runtime, session.id, turnId, "updateFromResponse", undefined, () => engine.updateFromResponse(usage));
  } else if (session.lastPromptTokens === -1 || engine.awaitingRealUsageAfterCompression) {
    // No usage while waiting for real usage after a compaction: clear the latch.
    session.lastPromptTokens = 0;
    callHookSync(runtime, session.id, turnId, "updateFromResponse", undefined, () => engine.updateFromResponse(normalizeUsage({})));
  }
}

async function handleProviderError(state: TurnState, step: StepState, request: AssembledRequest, err: ChatModelError): Promise<Attempt> {
  const { session, turnId, signal } = state;
  const { bus, config, logger } = session.runtime;
  const base = { type: "provider.error", sessionId: session.id, turnId, requestIndex: state.requestIndex, error: err, kind: err.kind } as const;
  if (err.kind === "aborted" || signal?.aborted) {
    endTurn(state, "interrupted", "interrupted");
    return { kind: "stop" };
  }
  if (err.kind === "context_length" && !state.overflowRetried && canCompact(state, true)) {
    // One forced compaction and one retry per turn, never a loop. The error
    // is reported once, saying whether that retry happens.
    state.overflowRetried = true;
    const outcome = await compact(state, "overflow", request.estimatedTokens, true);
    if (outcome.status === "committed") {
      bus.emit({ ...base, willRetry: true, retryInMs: 0 });
      return { kind: "again" };
    }
  } else if (isRetryable(err) && step.retry < config.maxRetries) {
    const wait = backoffMs(step.retry, { baseDelayMs: config.retryBaseDelayMs, maxDelayMs: config.retryMaxDelayMs }, retryAfterMsOf(err));
    bus.emit({ ...base, willRetry: true, retryInMs: Math.round(wait) });
    step.retry++;
    await sleep(wait, signal);
    return { kind: "again" };
  }
  bus.emit({ ...base, willRetry: false, retryInMs: null });
  logger.error(`provider request failed (${err.kind}): ${err.message}`, { sessionId: session.id, status: err.status });
  endTurn(state, "failed", `provider_error:${err.kind}`, err);
  return { kind: "stop" };
}
