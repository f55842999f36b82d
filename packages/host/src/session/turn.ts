import { contentText, normalizeUsage, overridesHook, toolCallsOf, toolError } from "@context-engine/core";
import type { AssistantMessage, ChatModelError, ChatModelResponse, Message, Usage } from "@context-engine/core";
import { cloneMessages } from "../clone.js";
import type { CompactionOutcome } from "../compaction/runner.js";
import { ContextBudgetExceededError, HostError } from "../errors.js";
import type { CompactionTrigger, TurnStatus } from "../events.js";
import { isRetryable, retryAfterMsOf, toChatModelError } from "../provider/errors.js";
import { markListEdited } from "../request/list-edits.js";
import { hasCompleteOnce } from "../runtime.js";
import { assembleRequest } from "./assemble.js";
import { callHook, callHookSync } from "./engine-calls.js";
import { overridesBase } from "./overrides.js";
import { pruneToolResults } from "./prune.js";
import { addUsage, validateResponse } from "./response.js";
import { dispatchTool } from "./tool-dispatch.js";
import type { TurnResult, TurnSession } from "./types.js";

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * One user turn: preflight compaction, then the request loop (assemble →
 * gates → provider → usage → tools → post-tool gate) until the model answers
 * without tool calls, then `onTurnComplete`. Never throws for provider or
 * engine failures: they end the turn with a status and a typed error.
 */
export async function runTurn(
  session: TurnSession,
  user: Message,
  turnId: string,
  signal: AbortSignal | undefined,
): Promise<TurnResult> {
  const { runtime } = session;
  const { engine, bus, config, counter } = runtime;
  const started = performance.now();
  const sessionId = session.id;
  let incoming: Message | null = user;

  session.messages.push(user);
  bus.emit({ type: "turn.started", sessionId, turnId, message: user });

  let status: TurnStatus = "completed";
  let exitReason = "completed";
  let error: ChatModelError | HostError | null = null;
  let finalMessage: AssistantMessage | null = null;
  let lastUsage: Usage | null = null;
  let totalUsage: Usage = normalizeUsage({});
  let apiCalls = 0;
  let requestIndex = 0;
  let compactions = 0;
  let attempts = 0;
  let timedOut = false;
  // An automatic pass that changed nothing (or failed) will not do better
  // later in this turn; forced passes (window, overflow) may still run.
  let stalled = false;
  let overflowRetried = false;
  const newMessages: Message[] = [user];
  // The conversation was checked against the threshold and not changed since.
  let checkedClean = false;
  const blockedReasons = new Set<string>();

  const estimateConversation = () => counter.countMessages(session.messages) + session.toolsTokens;

  const shouldCompress = (tokens: number): boolean =>
    callHookSync(runtime, sessionId, turnId, "shouldCompress", false, () => engine.shouldCompress(tokens) === true);

  const reportBlocked = (tokens: number) => {
    if (!overridesBase(engine, "shouldCompressInfo")) return;
    const info = callHookSync(runtime, sessionId, turnId, "shouldCompressInfo", null, () => engine.shouldCompressInfo(tokens));
    const reason = info && typeof info.reason === "string" ? info.reason : null;
    if (reason && !blockedReasons.has(reason)) {
      blockedReasons.add(reason);
      runtime.logger.warn("context is over the compression threshold but compression is blocked", { sessionId, reason, tokens });
      bus.emit({ type: "compaction.blocked", sessionId, turnId, reason, tokens });
    }
  };

  const compact = async (trigger: CompactionTrigger, tokens: number, force: boolean): Promise<CompactionOutcome | { status: "busy" }> => {
    attempts++;
    const outcome = await session.compact({ trigger, force, focusTopic: null, currentTokens: tokens, turnId }, signal);
    if (outcome.status === "committed") {
      compactions++;
      checkedClean = false;
      // Re-anchor the message that started the turn: by identity, else by content.
      if (incoming && !session.messages.includes(incoming)) {
        const text = JSON.stringify(incoming.content);
        incoming = [...session.messages].reverse().find((m) => m.role === "user" && JSON.stringify(m.content) === text) ?? null;
      }
    } else if (outcome.status === "timed_out") timedOut = true;
    else if (!force) stalled = true;
    return outcome;
  };

  const canCompact = (force = false) => !timedOut && (force || !stalled) && attempts < config.maxCompressionAttempts && !signal?.aborted;

  const finish = (s: TurnStatus, reason: string, err: ChatModelError | HostError | null = null) => {
    status = s;
    exitReason = reason;
    error = err;
  };

  // ---- Turn-start preflight -------------------------------------------------
  {
    let tokens = estimateConversation();
    const maintenance = overridesBase(engine, "shouldCompressPreflight")
      ? await callHook(runtime, sessionId, turnId, "shouldCompressPreflight", false, () => engine.shouldCompressPreflight(session.messages))
      : false;
    if (shouldCompress(tokens)) {
      while (canCompact()) {
        const outcome = await compact("preflight", tokens, false);
        if (outcome.status !== "committed") break;
        const after = estimateConversation();
        const progressed = after < tokens * 0.95;
        tokens = after;
        if (!shouldCompress(tokens) || !progressed) break;
      }
    } else if (maintenance === true && canCompact()) {
      await compact("maintenance", tokens, false);
    } else {
      reportBlocked(tokens);
      checkedClean = true;
    }
  }

  // ---- The request loop -------------------------------------------------------
  const complete = hasCompleteOnce(runtime.chatModel)
    ? runtime.chatModel.completeOnce.bind(runtime.chatModel)
    : runtime.chatModel.complete.bind(runtime.chatModel);

  let steps = 0;
  turn: while (true) {
    if (steps >= config.maxIterations) {
      finish("failed", "iteration_limit", new HostError("iteration_limit", `the turn reached the limit of ${config.maxIterations} model requests`));
      break;
    }
    steps++;
    let response: ChatModelResponse | null = null;
    let retry = 0;
    let overWindowTried = false;

    while (response === null) {
      if (signal?.aborted) {
        finish("interrupted", "interrupted");
        break turn;
      }
      requestIndex++;
      const request = await assembleRequest({
        runtime,
        sessionId,
        turnId,
        requestIndex,
        conversation: session.messages,
        incoming,
        toolsTokens: session.toolsTokens,
        promptCache: session.promptCache,
      });

      // Pre-API gate: compact when over threshold (skipped when the turn-start
      // check already looked at this very conversation).
      if (!checkedClean && canCompact() && shouldCompress(request.estimatedTokens)) {
        const outcome = await compact("pre_api", request.estimatedTokens, false);
        if (outcome.status === "committed") continue;
      }
      checkedClean = false;

      // A request that cannot fit the window is never sent.
      if (session.contextLength > 0 && request.estimatedTokens > session.contextLength) {
        if (!overWindowTried && canCompact(true)) {
          overWindowTried = true;
          const outcome = await compact("over_window", request.estimatedTokens, true);
          if (outcome.status === "committed") continue;
        }
        const err = new ContextBudgetExceededError(request.estimatedTokens, session.contextLength, compactions > 0 || attempts > 0);
        bus.emit({ type: "request.over_budget", sessionId, turnId, error: err, estimatedTokens: err.estimatedTokens, contextLength: err.contextLength });
        runtime.logger.error(err.message, { sessionId });
        finish("failed", "context_budget_exceeded", err);
        break turn;
      }

      if (bus.wants("provider.request")) {
        bus.emit({
          type: "provider.request",
          sessionId,
          turnId,
          requestIndex,
          attempt: retry,
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

      apiCalls++;
      const sentAt = performance.now();
      try {
        const raw = await complete({
          messages: request.messages,
          model: session.model,
          ...(session.tools.length > 0 ? { tools: session.tools as Array<Record<string, unknown>> } : {}),
          ...(signal ? { signal } : {}),
        });
        response = validateResponse(raw);
        const message = response.message;
        const usage = response.usage ? normalizeUsage(response.usage) : null;
        bus.emit({
          type: "provider.response",
          sessionId,
          turnId,
          requestIndex,
          message,
          usage,
          finishReason: response.finishReason ?? null,
          durationMs: performance.now() - sentAt,
        });
        if (usage) {
          lastUsage = usage;
          totalUsage = addUsage(totalUsage, usage);
          if (usage.prompt_tokens > 0) session.lastPromptTokens = usage.prompt_tokens;
          callHookSync(runtime, sessionId, turnId, "updateFromResponse", undefined, () => engine.updateFromResponse(usage));
        } else if (session.lastPromptTokens === -1 || engine.awaitingRealUsageAfterCompression) {
          // No usage while waiting for real usage after a compaction: clear the latch.
          session.lastPromptTokens = 0;
          callHookSync(runtime, sessionId, turnId, "updateFromResponse", undefined, () => engine.updateFromResponse(normalizeUsage({})));
        }
      } catch (thrown) {
        const err = toChatModelError(thrown, signal);
        if (err.kind === "aborted" || signal?.aborted) {
          finish("interrupted", "interrupted");
          break turn;
        }
        if (err.kind === "context_length" && !overflowRetried && canCompact(true)) {
          // One forced compaction and one retry per turn, never a loop. The
          // error is reported once, saying whether that retry happens.
          overflowRetried = true;
          const outcome = await compact("overflow", request.estimatedTokens, true);
          if (outcome.status === "committed") {
            bus.emit({ type: "provider.error", sessionId, turnId, requestIndex, error: err, kind: err.kind, willRetry: true, retryInMs: 0 });
            continue;
          }
        } else if (isRetryable(err) && retry < config.maxRetries) {
          const backoff = Math.min(config.retryMaxDelayMs, config.retryBaseDelayMs * 2 ** retry);
          const jittered = backoff * (0.75 + Math.random() * 0.5);
          const wait = Math.min(config.retryMaxDelayMs, retryAfterMsOf(err) ?? jittered);
          bus.emit({ type: "provider.error", sessionId, turnId, requestIndex, error: err, kind: err.kind, willRetry: true, retryInMs: Math.round(wait) });
          retry++;
          await sleep(wait, signal);
          continue;
        }
        bus.emit({ type: "provider.error", sessionId, turnId, requestIndex, error: err, kind: err.kind, willRetry: false, retryInMs: null });
        runtime.logger.error(`provider request failed (${err.kind}): ${err.message}`, { sessionId, status: err.status });
        finish("failed", `provider_error:${err.kind}`, err);
        break turn;
      }
    }

    const message = response.message;
    session.messages.push(message);
    newMessages.push(message);
    finalMessage = message;

    const calls = toolCallsOf(message);
    if (calls.length === 0) {
      const reason = response.finishReason;
      if (reason === "length") finish("completed", "length");
      else if (reason === "content_filter") finish("completed", "content_filter");
      else finish("completed", "completed");
      break;
    }

    // ---- Tools ---------------------------------------------------------------
    let liveListShared = false;
    for (const call of calls) {
      let content: string;
      if (signal?.aborted) content = toolError("interrupted: the turn was cancelled before this tool ran");
      else {
        liveListShared ||= session.engineToolNames.has(call.function.name);
        content = await dispatchTool(session, call, turnId, signal);
      }
      const result: Message = { role: "tool", tool_call_id: call.id, content };
      session.messages.push(result);
      newMessages.push(result);
    }
    // An engine tool got the live list and may have edited earlier messages in
    // place: the next request re-checks all of it, not just the new tail.
    if (liveListShared) markListEdited(session.messages);
    if (signal?.aborted) {
      finish("interrupted", "interrupted");
      break;
    }

    // ---- Post-tool gate ----------------------------------------------------------
    if (session.lastPromptTokens !== -1) {
      const pressure = session.lastPromptTokens > 0 ? session.lastPromptTokens : estimateConversation();
      if (canCompact() && shouldCompress(pressure)) {
        await compact("post_tool", pressure, false);
      } else {
        reportBlocked(pressure);
        await pruneToolResults(session, turnId, pressure);
      }
    }
  }

  // ---- Finalise ---------------------------------------------------------------------
  const finalStatus = status as TurnStatus;
  const failed = finalStatus === "failed";
  const interrupted = finalStatus === "interrupted";
  if (overridesHook(engine, "onTurnComplete")) {
    await callHook(runtime, sessionId, turnId, "onTurnComplete", undefined, () =>
      engine.onTurnComplete(cloneMessages(session.messages), lastUsage === null ? null : { ...lastUsage }, {
        turnId,
        sessionId,
        interrupted,
        failed,
        exitReason,
        apiCallCount: apiCalls,
      }),
    );
  }
  const durationMs = performance.now() - started;
  bus.emit({
    type: "turn.completed",
    sessionId,
    turnId,
    status,
    exitReason,
    usage: lastUsage,
    totalUsage,
    apiCalls,
    durationMs,
    finalMessage,
    error,
  });
  return {
    sessionId,
    turnId,
    status,
    exitReason,
    message: finalMessage,
    text: finalMessage ? contentText(finalMessage.content) : "",
    usage: lastUsage,
    totalUsage,
    apiCalls,
    compactions,
    newMessages,
    error,
    durationMs,
  };
}
