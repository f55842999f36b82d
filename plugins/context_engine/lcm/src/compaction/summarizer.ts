import { ChatModelError, contentText, estimateTextTokens } from "@context-engine/core";
import type { ChatModel, Logger } from "@context-engine/core";
import { checkFaithfulness } from "./faithfulness.js";
import { deterministicSummary } from "./fallback.js";
import { buildSummaryPrompt } from "./prompts.js";
import type { SummaryStyle } from "./prompts.js";

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

const THINK = /<(think|thinking|reasoning)>[\s\S]*?<\/\1>/gi;

/** Clean a model answer: drop reasoning blocks and surrounding fences. */
function cleanAnswer(text: string): string {
  let out = text.replace(THINK, "").trim();
  out = out.replace(/^```[a-z]*\n([\s\S]*?)\n```$/i, "$1").trim();
  return out;
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
  constructor(private readonly options: SummarizerOptions) {}

  get stats(): { calls: number; fallbacks: number; breakerOpen: boolean } {
    return { calls: this.#calls, fallbacks: this.#fallbacks, breakerOpen: Date.now() < this.#openUntil };
  }

  async summarize(request: SummarizeRequest): Promise<SummarizeResult> {
    const o = this.options;
    let reason = o.chatModel ? undefined : "no summary model configured";
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
          return { content: outcome.text, tokens: estimateTextTokens(outcome.text), level: level.style, ...(o.model ? { model: o.model } : {}) };
        }
        reason = outcome.reason;
        if (outcome.terminal) break;
      }
    }
    if (request.signal?.aborted) throw abortError();
    this.#fallbacks++;
    const content = deterministicSummary(request.source, request.sourceTokens, o.fallbackMaxTokens);
    return { content, tokens: estimateTextTokens(content), level: "fallback", ...(reason ? { fallbackReason: reason } : {}) };
  }

  async #attempt(
    request: SummarizeRequest,
    style: SummaryStyle,
    target: number,
  ): Promise<{ ok: true; text: string } | { ok: false; reason: string; terminal: boolean }> {
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
    const timeout = AbortSignal.timeout(o.timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    this.#calls++;
    try {
      const response = await o.chatModel!.complete({
        messages: [
          { role: "system", content: prompt.system },
          { role: "user", content: prompt.user },
        ],
        ...(o.model ? { model: o.model } : {}),
        temperature: o.temperature,
        signal,
      });
      const text = cleanAnswer(contentText(response.message?.content ?? ""));
      if (!text) return { ok: false, reason: "empty summary", terminal: false };
      const tokens = estimateTextTokens(text);
      if (tokens >= request.sourceTokens) return { ok: false, reason: `summary not smaller than input (${tokens} ≥ ${request.sourceTokens})`, terminal: false };
      if (tokens > target * 3) return { ok: false, reason: `summary over 3× its target (${tokens} > ${target * 3})`, terminal: false };
      const faith = checkFaithfulness(text, request.source + "\n" + (request.previousContext ?? ""));
      if (faith.checked >= 3 && faith.ratio > o.maxUnsupportedRatio) {
        return { ok: false, reason: `summary states ${faith.unsupported.length} identifiers absent from its sources (${faith.unsupported.slice(0, 5).join(", ")})`, terminal: false };
      }
      return { ok: true, text };
    } catch (error) {
      if (request.signal?.aborted) throw abortError();
      const kind = ChatModelError.is(error) ? error.kind : "unknown";
      const message = error instanceof Error ? error.message : String(error);
      o.logger.warn("lcm: summariser call failed", { kind, message, style });
      if (kind === "auth" || kind === "quota" || kind === "bad_request") {
        this.#trip(o.breakerFailures);
        return { ok: false, reason: `summariser ${kind} error: ${message}`, terminal: true };
      }
      this.#trip(1);
      const terminal = Date.now() < this.#openUntil || kind === "network" || kind === "timeout" || kind === "overloaded";
      return { ok: false, reason: `summariser ${kind} error: ${message}`, terminal };
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
