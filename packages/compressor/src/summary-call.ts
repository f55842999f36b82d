import type { ChatModel, ChatModelErrorKind, SummaryRejection } from "@context-engine/core";
import { ChatModelError, acceptSummary, finishReasonOf, raceAbort } from "@context-engine/core";
import { z } from "zod";
import { HEADINGS, quoteBlock } from "./prompt.js";
import { SUMMARY_END_MARKER, SUMMARY_PREFIX, SUMMARY_TAG } from "./markers.js";
import { redactSecrets } from "./redact.js";

/** What we need from a ChatModel answer; the content itself is normalised by `acceptSummary`. */
const SummaryResponseSchema = z.looseObject({
  message: z.looseObject({
    content: z.unknown().optional(),
    refusal: z.string().nullable().optional(),
  }),
  finishReason: z.string().nullable().optional(),
});

/** Rejection reasons that are the model's answer being unusable, mapped to the failure kinds the policy knows. */
const KIND_OF: Record<SummaryRejection, ChatModelErrorKind> = {
  empty: "empty",
  truncated: "truncated",
  refusal: "refusal",
  copy: "refusal",
  oversized: "refusal",
  invented: "refusal",
};

/** A model answer the shared acceptance checks rejected; `reason` says which check. */
export class SummaryRejectedError extends ChatModelError {
  readonly reason: SummaryRejection;
  constructor(reason: SummaryRejection, detail: string) {
    super(KIND_OF[reason], `summary rejected (${reason}): ${detail}`);
    this.reason = reason;
  }
}

export interface SummaryCallParams {
  chatModel: ChatModel;
  /** Model to ask for; undefined = the chat model's default. */
  model?: string | undefined;
  prompt: string;
  signal?: AbortSignal | undefined;
  /** The text being summarised (turns and previous summary): a copy of it is rejected. */
  source: string;
  /** Largest acceptable answer, in tokens. */
  maxTokens: number;
  countTokens?: ((text: string) => number) | undefined;
}

/**
 * One summariser call. Resolves to the cleaned summary body or throws a
 * `ChatModelError` (`SummaryRejectedError` when the shared acceptance checks
 * refuse the answer, or whatever the model threw). Never sets `maxTokens`: a
 * hard cap truncates summaries.
 */
export async function requestSummary(params: SummaryCallParams): Promise<string> {
  const { chatModel, signal } = params;
  const call = chatModel.complete({
    messages: [{ role: "user", content: params.prompt }],
    ...(params.model ? { model: params.model } : {}),
    ...(signal ? { signal } : {}),
  });
  const raw = await raceAbort(call, signal);
  const parsed = SummaryResponseSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ChatModelError("empty", `summariser returned an unusable response: ${parsed.error.issues[0]?.message ?? "bad shape"}`);
  }
  const { message } = parsed.data;
  const verdict = acceptSummary({
    content: message.content,
    // Whatever the adapter called it: finishReason, stop_reason, a Responses-API `incomplete` status.
    finishReason: finishReasonOf(raw),
    refusal: message.refusal,
    source: params.source,
    knownText: params.prompt,
    maxTokens: params.maxTokens,
    prefixes: [SUMMARY_PREFIX, SUMMARY_TAG],
    countTokens: params.countTokens,
  });
  if (!verdict.ok) throw new SummaryRejectedError(verdict.reason, verdict.detail);
  return redactSecrets(stripEndMarker(verdict.text));
}

/** A model that echoes our wrapper may also end with our end marker. */
function stripEndMarker(text: string): string {
  const at = text.lastIndexOf(SUMMARY_END_MARKER);
  return at >= 0 ? text.slice(0, at).trim() || text : text;
}

/** Settle as soon as `signal` aborts, even if the model ignores the signal (core's one implementation). */
export { raceAbort };

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The compaction was aborted", "AbortError");
}

/**
 * Make sure the summary quotes the newest user request verbatim under its
 * heading: the model may paraphrase or drop it, and a lost request is the
 * worst thing a compaction can do.
 */
export function groundLatestRequest(summary: string, latestRequest: string | null): string {
  if (latestRequest === null) return summary;
  const probe = normalise(latestRequest).slice(0, 160);
  if (!probe || normalise(summary).includes(probe)) return summary;
  const grounded = `Newest user message in the compacted turns (verbatim; newer messages after this summary take precedence):\n${quoteBlock(latestRequest, 1_400)}`;
  const at = summary.indexOf(HEADINGS.request);
  if (at < 0) return `${HEADINGS.request}\n${grounded}\n\n${summary}`;
  const lineEnd = summary.indexOf("\n", at);
  if (lineEnd < 0) return `${summary}\n${grounded}`;
  return `${summary.slice(0, lineEnd + 1)}${grounded}\n${summary.slice(lineEnd + 1)}`;
}

function normalise(text: string): string {
  return text.replace(/^>\s?/gm, "").replace(/\s+/g, " ").trim();
}

/** Stop a pass the host aborted, with the host's reason. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortReason(signal);
}
