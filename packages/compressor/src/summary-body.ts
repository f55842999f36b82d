import type { ChatModel, Logger, Message } from "@context-engine/core";
import type { CompressionConfig } from "./config.js";
import { buildExtractiveSummary } from "./extractive.js";
import { classifyError, describeError, failureAction } from "./failure-policy.js";
import { recordFailure } from "./guards.js";
import type { CallInfo } from "./prune.js";
import type { CompactionRecord, SessionState } from "./session-state.js";
import { SummaryRejectedError, abortReason } from "./summary-call.js";
import { summarise } from "./summariser.js";

/** What a compaction pass needs to write its summary body. */
export interface SummaryBodyInput {
  chatModel: ChatModel | undefined;
  config: CompressionConfig;
  state: SessionState;
  logger: Logger;
  middle: Message[];
  previous: string | null;
  latestRequest: string | null;
  firstRequest: string | null;
  /** Text of what the result keeps verbatim (kept messages, restated task): facts it holds need no room in the summary. */
  keptText: string;
  budget: number;
  calls: Map<string, CallInfo>;
  focusTopic?: string | undefined;
  memoryContext?: string | undefined;
  signal?: AbortSignal | undefined;
  force?: boolean | undefined;
  mainModel: string;
  contextLength: number;
  followModel: string | undefined;
  countTokens: (text: string) => number;
}

export type SummaryBody = { mode: CompactionRecord["mode"]; body: string; rejected?: CompactionRecord["rejected"] } | { abort: true };

/**
 * The summary body: the model's when one is configured and not cooling down,
 * else the deterministic one; a failed model call falls back to the
 * deterministic summary, or aborts the pass when the failure policy says so
 * (the transcript is then left unchanged).
 */
export async function writeSummaryBody(p: SummaryBodyInput): Promise<SummaryBody> {
  const { state, logger, signal } = p;
  const extractive = (reason: string) =>
    buildExtractiveSummary({
      turns: p.middle,
      previousSummary: p.previous,
      latestRequest: p.latestRequest,
      firstRequest: p.firstRequest,
      keptText: p.keptText,
      reason,
      focusTopic: p.focusTopic,
      targetTokens: p.budget,
      calls: p.calls,
    });
  const now = Date.now();
  if (!p.chatModel) return { mode: "extractive", body: extractive("No summary model is configured.") };
  if (state.cooldownUntil > now && !p.force) {
    if (state.terminalFailure) {
      logger.warn("compaction skipped: the summariser failed and is cooling down; the transcript is unchanged", {
        error: state.lastSummaryError,
        retryInSeconds: Math.ceil((state.cooldownUntil - now) / 1000),
      });
      return { abort: true };
    }
    return { mode: "fallback", body: extractive(`The summariser is cooling down after a failure (${state.lastSummaryError ?? "unknown error"}).`) };
  }
  try {
    const body = await summarise({
      chatModel: p.chatModel,
      state,
      logger,
      middle: p.middle,
      previous: p.previous,
      latestRequest: p.latestRequest,
      keptText: p.keptText,
      budget: p.budget,
      focusTopic: p.focusTopic,
      memoryContext: p.memoryContext,
      signal,
      summaryModel: p.config.summary_model ?? undefined,
      mainModel: p.mainModel,
      contextLength: p.contextLength,
      timeoutSeconds: p.config.context_timeout_seconds,
      followModel: p.followModel,
      countTokens: p.countTokens,
    });
    return { mode: "model", body };
  } catch (error) {
    if (signal?.aborted) throw abortReason(signal);
    const kind = classifyError(error);
    recordFailure(state, kind, error);
    let rejected: CompactionRecord["rejected"];
    if (error instanceof SummaryRejectedError) {
      rejected = { reason: error.reason, detail: error.message };
      state.lastRejection = { ...rejected, at: Date.now() };
    }
    if (failureAction(kind, p.config.abort_on_summary_failure) === "abort") {
      logger.warn("compaction aborted: the summariser failed; the transcript is unchanged. Retry with /compress or start a new session.", {
        kind,
        error: describeError(error),
      });
      return { abort: true };
    }
    logger.warn("the summariser failed; using the deterministic summary", { kind, error: describeError(error) });
    const body = extractive(`The summariser failed (${kind}: ${describeError(error)}).`);
    return { mode: "fallback", body, ...(rejected ? { rejected } : {}) };
  }
}
