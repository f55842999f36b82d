import { ChatModelError, acceptSummary, describeErrorWithCauses, estimateTextTokens, finishReasonOf, isServerError } from "@context-engine/core";
import type { ChatModel, Logger } from "@context-engine/core";
import { SUMMARY_PREFIXES } from "./prompts.js";
import { deterministicSummary } from "./fallback.js";
import { buildSummaryPrompt } from "./prompts.js";
import type { SummaryStyle } from "./prompts.js";
import { deadlineSignal } from "../deadline.js";

export interface SummarizeRequest {
  depth: number;
  source: string;
  sourceTokens: number;
  targetTokens: number;
  previousContext?: string;
  focusTopic?: string;
  signal?: AbortSignal;
  /** Skip the model (e.g. the pass's time budget is spent): deterministic summary only. */
  modelUnavailableReason?: string;
}

export type SummaryLevel = "normal" | "aggressive" | "fallback";

export interface SummarizeResult {
  content: string;
  tokens: number;
  level: SummaryLevel;
  /** Why the model levels were not used, when the fallback was. */
  fallbackReason?: string;
  /** The model answered but the shared acceptance checks rejected the answer (reason: truncated, refusal, copy, …). */
  rejected?: { reason: string; detail: string };
  model?: string;
}

export interface SummarizerOptions {
  chatModel?: ChatModel;
  model?: string;
  temperature: number;
  timeoutMs: number;
  fallbackMaxTokens: number;
  customInstructions: string;
  maxUnsupportedRatio: number;
  breakerFailures: number;
  breakerCooldownMs: number;
  logger: Logger;
}

/** Pause before the one retry of a plain server error. */
const SERVER_RETRY_MS = 250;

/** Below this, a model's summary bound is raised: at 3–4k windows 3× the target was a dozen tokens, and every summary failed it. */
export const MIN_ACCEPT_BOUND = 96;

/** The largest summary accepted: 3× the target, at least MIN_ACCEPT_BOUND, and always smaller than its source. */
export function acceptBound(target: number, sourceTokens: number): number {
  return Math.max(1, Math.min(Math.max(target * 3, MIN_ACCEPT_BOUND), sourceTokens - 1));
}

/**
 * Summaries with escalation: the normal prompt at the target, then a terse
 * prompt at half of it, then a deterministic extract. Each level is accepted
 * only when it is non-empty, smaller than its input, within 3× its target and
 * faithful to the sources. Auth and quota failures open a circuit breaker so a
 * misconfigured summariser costs one failed call, not one per pass.
 */
export class Summarizer {
  #failures = 0;
  #openUntil = 0;
  #calls = 0;
  #fallbacks = 0;
  #rejections = 0;
  #lastRejection: { reason: string; detail: string } | null = null;
  /** The main model after `/model`; asked for when no `summary_model` is configured. */
  #followModel: string | undefined;
  constructor(private readonly options: SummarizerOptions) {}

  get stats(): { calls: number; fallbacks: number; rejections: number; breakerOpen: boolean } {
    return { calls: this.#calls, fallbacks: this.#fallbacks, rejections: this.#rejections, breakerOpen: Date.now() < this.#openUntil };
  }

  /** The last model answer the acceptance checks rejected (the summary then came from the next level or the fallback). */
  get lastRejection(): { reason: string; detail: string } | null {
    return this.#lastRejection;
  }

  /** The model summaries go to: `summary_model` if set, else the one `/model` switched to, else the chat model's default. */
  get model(): string | undefined {
    return this.options.model ?? this.#followModel;
  }

  /** The main model changed; summaries follow it unless `summary_model` is set. A new route earns a closed breaker. */
  followModel(model: string | undefined): void {
    if (this.options.model || !model || model === this.#followModel) return;
    this.#followModel = model;
    this.#failures = 0;
    this.#openUntil = 0;
  }

  async summarize(request: SummarizeRequest): Promise<SummarizeResult> {
    const o = this.options;
    let reason = o.chatModel ? undefined : "no summary model configured";
    let rejected: { reason: string; detail: string } | undefined;
    if (o.chatModel && Date.now() < this.#openUntil) reason = "summariser circuit breaker open";
    if (o.chatModel && request.modelUnavailableReason) reason = request.modelUnavailableReason;
    if (o.chatModel && !reason) {
      const levels: Array<{ style: SummaryStyle; target: number }> = [
        { style: "normal", target: request.targetTokens },
        { style: "aggressive", target: Math.max(64, Math.floor(request.targetTokens / 2)) },
      ];
      for (const level of levels) {
        if (request.signal?.aborted) throw abortError();
        const outcome = await this.#attempt(request, level.style, level.target);
        if (outcome.ok) {
          this.#failures = 0;
          const model = this.model;
          return { content: outcome.text, tokens: estimateTextTokens(outcome.text), level: level.style, ...(model ? { model } : {}) };
        }
        reason = outcome.reason;
        if (outcome.rejected) rejected = outcome.rejected;
        if (outcome.terminal) break;
      }
    }
    if (request.signal?.aborted) throw abortError();
    this.#fallbacks++;
    const content = deterministicSummary(request.source, request.sourceTokens, o.fallbackMaxTokens);
    return {
      content,
      tokens: estimateTextTokens(content),
      level: "fallback",
      ...(reason ? { fallbackReason: reason } : {}),
      ...(rejected ? { rejected } : {}),
    };
  }

  async #attempt(
    request: SummarizeRequest,
    style: SummaryStyle,
    target: number,
  ): Promise<{ ok: true; text: string } | { ok: false; reason: string; terminal: boolean; rejected?: { reason: string; detail: string } }> {
    const o = this.options;
    const prompt = buildSummaryPrompt({
      depth: request.depth,
      style,
      targetTokens: target,
      source: request.source,
      ...(request.previousContext ? { previousContext: request.previousContext } : {}),
      ...(request.focusTopic ? { focusTopic: request.focusTopic } : {}),
      customInstructions: o.customInstructions,
    });
    const deadline = deadlineSignal(o.timeoutMs, request.signal);
    const signal = deadline.signal;
    const model = this.model;
    const call = () => {
      this.#calls++;
      return o.chatModel!.complete({
        messages: [
          { role: "system", content: prompt.system },
          { role: "user", content: prompt.user },
        ],
        ...(model ? { model } : {}),
        temperature: o.temperature,
        signal,
      });
    };
    try {
      let response: Awaited<ReturnType<typeof call>>;
      try {
        response = await call();
      } catch (error) {
        // A plain 5xx is retried once; a second one falls back like any failure.
        if (!isServerError(error) || signal.aborted) throw error;
        o.logger.warn("lcm: summariser server error; retrying once", { message: describeErrorWithCauses(error) });
        await new Promise((resolve) => setTimeout(resolve, SERVER_RETRY_MS));
        response = await call();
      }
      const sources = request.source + "\n" + (request.previousContext ?? "");
      const verdict = acceptSummary({
        content: response?.message?.content,
        finishReason: finishReasonOf(response),
        refusal: (response?.message as { refusal?: unknown } | undefined)?.refusal as string | null | undefined,
        source: request.source,
        knownText: sources,
        maxTokens: acceptBound(target, request.sourceTokens),
        prefixes: SUMMARY_PREFIXES,
        maxUnsupportedRatio: o.maxUnsupportedRatio,
        countTokens: estimateTextTokens,
      });
      if (!verdict.ok) {
        this.#rejections++;
        this.#lastRejection = { reason: verdict.reason, detail: verdict.detail };
        // The reason is in the message itself: hosts that show only the message (the chat) still say why.
        o.logger.warn(`lcm: summary rejected (${verdict.reason}: ${verdict.detail}); using a fallback`, { reason: verdict.reason, detail: verdict.detail, style });
        return { ok: false, reason: `summary rejected (${verdict.reason}): ${verdict.detail}`, terminal: false, rejected: { reason: verdict.reason, detail: verdict.detail } };
      }
      return { ok: true, text: verdict.text };
    } catch (error) {
      if (request.signal?.aborted) throw abortError();
      const kind = isServerError(error) ? "server_error" : ChatModelError.is(error) ? error.kind : "unknown";
      // With its causes (a network failure says why only there: fetch failed ← connect ECONNREFUSED), redacted.
      const message = describeErrorWithCauses(error);
      o.logger.warn("lcm: summariser call failed", { kind, message, style });
      if (kind === "auth" || kind === "quota" || kind === "bad_request") {
        this.#trip(o.breakerFailures);
        return { ok: false, reason: `summariser ${kind} error: ${message}`, terminal: true };
      }
      this.#trip(1);
      const terminal = Date.now() < this.#openUntil || kind === "network" || kind === "timeout" || kind === "overloaded" || kind === "server_error";
      return { ok: false, reason: `summariser ${kind} error: ${message}`, terminal };
    } finally {
      deadline.clear();
    }
  }

  #trip(weight: number): void {
    this.#failures += weight;
    if (this.#failures >= this.options.breakerFailures) {
      this.#openUntil = Date.now() + this.options.breakerCooldownMs;
      this.#failures = 0;
      this.options.logger.warn("lcm: summariser circuit breaker opened", { cooldownMs: this.options.breakerCooldownMs });
    }
  }
}

function abortError(): Error {
  const e = new Error("compaction aborted");
  e.name = "AbortError";
  return e;
}
