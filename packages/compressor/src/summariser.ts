import type { ChatModel, Logger, Message } from "@context-engine/core";
import { ChatModelError } from "@context-engine/core";
import { classifyError, describeError, isServerError } from "./failure-policy.js";
import { chooseIdentifiers, formatIdentifiers, harvestTurns } from "./identifiers.js";
import { ANCHOR_HEADING, buildSummaryPrompt } from "./prompt.js";
import { collectDroppedFacts, renderDroppedFacts, statedInText } from "./dropped-facts.js";
import { redactSecrets } from "./redact.js";
import { serializeTurns } from "./serialize.js";
import type { SessionState } from "./session-state.js";
import { groundLatestRequest, requestSummary } from "./summary-call.js";

/** Kinds worth one retry on the main model when a distinct summary model failed. */
const RETRY_ON_MAIN_MODEL = new Set(["bad_request", "context_length", "refusal", "unknown", "empty", "truncated"]);

export interface SummariseParams {
  chatModel: ChatModel;
  state: SessionState;
  logger: Logger;
  middle: Message[];
  previous: string | null;
  latestRequest: string | null;
  /** Text the result keeps verbatim: facts it holds are not appended again. */
  keptText?: string | undefined;
  budget: number;
  focusTopic?: string | undefined;
  memoryContext?: string | undefined;
  signal?: AbortSignal | undefined;
  /** The configured `summary_model`, if any, and the main model's name. */
  summaryModel: string | undefined;
  mainModel: string;
  /** Window of the main model (0 = unknown), to size the summariser input. */
  contextLength: number;
  /** `context_timeout_seconds`; the summariser gets 80% of it. */
  timeoutSeconds: number;
  /** The main model to ask for when no `summary_model` is set and the model changed (`/model`); else undefined. */
  followModel?: string | undefined;
  countTokens?: ((text: string) => number) | undefined;
}

/** Pause before the one retry of a plain server error. */
const SERVER_RETRY_MS = 250;

/** One retry after an HTTP 5xx that is not a capacity answer; anything else (or a second 5xx) is thrown. */
async function requestWithServerRetry(call: () => Promise<string>, signal: AbortSignal | undefined, logger: Logger): Promise<string> {
  try {
    return await call();
  } catch (error) {
    if (!isServerError(error) || signal?.aborted) throw error;
    logger.warn("the summariser answered with a server error; retrying once", { error: describeError(error) });
    await new Promise((resolve) => setTimeout(resolve, SERVER_RETRY_MS));
    if (signal?.aborted) throw error;
    return await call();
  }
}

/**
 * Ask the chat model for the summary body: prompt, deadline, one retry on the
 * main model when a distinct summary model fails, and the latest request
 * grounded. Throws what the model threw (classified by the caller).
 */
export async function summarise(params: SummariseParams): Promise<string> {
  // Everything that reaches the summary model is redacted, not only the turns: the previous summary (a host may
  // have written it), the verbatim latest request, the memory context and the focus topic.
  const redactOrNull = (text: string | null) => (text === null ? null : redactSecrets(text));
  const p: SummariseParams = {
    ...params,
    previous: redactOrNull(params.previous),
    latestRequest: redactOrNull(params.latestRequest),
    focusTopic: params.focusTopic === undefined ? undefined : redactSecrets(params.focusTopic),
    memoryContext: params.memoryContext === undefined ? undefined : redactSecrets(params.memoryContext),
  };
  const ctxChars = p.contextLength > 0 ? p.contextLength * 2 : 160_000;
  const maxChars = Math.max(4_000, Math.min(160_000, ctxChars) - (p.previous?.length ?? 0));
  const turns = serializeTurns(p.middle, { maxChars });
  const prompt = buildSummaryPrompt({
    turns,
    previousSummary: p.previous,
    focusTopic: p.focusTopic,
    memoryContext: p.memoryContext,
    targetTokens: p.budget,
    latestRequest: p.latestRequest,
  });
  const distinct = p.summaryModel !== undefined && p.summaryModel !== p.mainModel && !p.state.useMainModel;
  const deadline = summaryDeadline(p.signal, p.timeoutSeconds);
  const source = p.previous ? `${p.previous}\n\n${turns}` : turns;
  // A 1 MB answer is not a summary; a few times the budget is generous.
  const maxTokens = Math.max(2_000, p.budget * 4);
  const ask = (model: string | undefined) =>
    requestWithServerRetry(() => requestSummary({ chatModel: p.chatModel, model, prompt, signal: deadline.signal, source, maxTokens, countTokens: p.countTokens }), deadline.signal, p.logger);
  try {
    let body: string;
    try {
      body = await ask(distinct ? p.summaryModel : p.followModel);
    } catch (error) {
      const kind = classifyError(error);
      if (!distinct || deadline.signal?.aborted || !RETRY_ON_MAIN_MODEL.has(kind)) throw error;
      // The configured summary model may not exist on this route: try the main model once.
      p.logger.warn(`summary model "${p.summaryModel}" failed (${kind}); retrying on the main model`, { error: describeError(error) });
      p.state.useMainModel = true;
      body = await ask(p.followModel);
    }
    const kept = p.keptText ?? "";
    // A latest request the result keeps verbatim (restated after the summary, or in the tail) is not quoted twice.
    const keptRequest = p.latestRequest !== null && p.latestRequest.trim().length > 0 && kept.includes(p.latestRequest.trim());
    const grounded = keptRequest ? body : groundLatestRequest(body, p.latestRequest);
    return withDroppedFacts(anchorIdentifiers(grounded, p.middle, p.budget, kept), p.middle, p.budget, kept);
  } finally {
    deadline.dispose();
  }
}

/**
 * The summariser gets 80% of the host's pass timeout: a slow summariser then
 * ends as a `timeout` failure while there is still time to write the
 * deterministic summary, instead of the host discarding the whole pass.
 */
function summaryDeadline(hostSignal: AbortSignal | undefined, seconds: number): { signal: AbortSignal | undefined; dispose(): void } {
  if (!(seconds > 0)) return { signal: hostSignal, dispose() {} };
  const controller = new AbortController();
  const ms = seconds * 800;
  const timer = setTimeout(
    () => controller.abort(new ChatModelError("timeout", `the summariser took longer than ${Math.round(ms)} ms (80% of context_timeout_seconds)`)),
    ms,
  );
  timer.unref?.();
  const signal = hostSignal ? AbortSignal.any([hostSignal, controller.signal]) : controller.signal;
  return { signal, dispose: () => clearTimeout(timer) };
}


/** Share of the summary budget (in characters, ~4 a token) the exact facts of the dropped turns may add to a model summary. */
const FACTS_SHARE = 0.75;
/** Share of the summary budget (in tokens, as characters: ~a quarter of the tokens) the recurring-identifier anchors may add. */
const ANCHOR_SHARE = 0.2;

/** The dropped turns' exact commands, error lines, paths and numbers that the model summary does not state, appended verbatim. */
export function withDroppedFacts(summary: string, middle: readonly Message[], budgetTokens: number, keptText = ""): string {
  const keptHas = statedInText(keptText);
  const facts = renderDroppedFacts(collectDroppedFacts(middle), Math.floor(budgetTokens * 4 * FACTS_SHARE), (t) => summary.includes(t) || keptHas(t));
  return facts ? `${summary}\n\n${facts}` : summary;
}

/**
 * Models paraphrase; a continuation needs exact strings. The most recurring
 * paths, identifiers and numbers of the compacted turns that the model's
 * summary does not contain are appended verbatim (about a tenth of the
 * summary budget, from the newest ~16k characters).
 */
export function anchorIdentifiers(summary: string, middle: readonly Message[], budgetTokens: number, keptText = ""): string {
  const keptHas = statedInText(keptText);
  const chosen = chooseIdentifiers(harvestTurns(middle, 16_000), [], Math.max(300, Math.floor(budgetTokens * ANCHOR_SHARE)), (t) => summary.includes(t) || keptHas(t));
  // Harvested from the raw turns: a token can look like an identifier, so the block is redacted like the summary.
  const lines = formatIdentifiers(chosen).map((line) => redactSecrets(line));
  return lines.length ? `${summary}\n\n${ANCHOR_HEADING}\n${lines.join("\n")}` : summary;
}
