import type { ChatModel } from "@context-engine/core";
import { ChatModelError, MessageContentSchema, contentText } from "@context-engine/core";
import { z } from "zod";
import { HEADINGS, quoteBlock } from "./prompt.js";
import { redactSecrets } from "./redact.js";

/** What we need from a ChatModel answer; anything else is an unusable response. */
const SummaryResponseSchema = z.looseObject({
  message: z.looseObject({
    content: MessageContentSchema.nullable().optional(),
    refusal: z.string().nullable().optional(),
  }),
  finishReason: z.string().nullable().optional(),
});

const THINK_BLOCK = /<(think|thinking|reasoning)>[\s\S]*?<\/\1>/gi;
const REFUSAL_OPENING = /^(i'?m sorry|i am sorry|sorry,|i can(?:'|no)t|i cannot|i won'?t|i am unable|i'?m unable|as an ai)/i;

export interface SummaryCallParams {
  chatModel: ChatModel;
  /** Model to ask for; undefined = the chat model's default. */
  model?: string | undefined;
  prompt: string;
  signal?: AbortSignal | undefined;
}

/**
 * One summariser call. Resolves to the cleaned summary body or throws a
 * `ChatModelError` (`empty`, `truncated`, `refusal`, or whatever the model
 * threw). Never sets `maxTokens`: a hard cap truncates summaries.
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
  const { message, finishReason } = parsed.data;
  if (finishReason === "length") {
    throw new ChatModelError("truncated", "summariser answer was cut off (finish_reason=length); a partial summary is never kept");
  }
  if (message.refusal && message.refusal.trim()) {
    throw new ChatModelError("refusal", `summariser refused: ${message.refusal.slice(0, 200)}`);
  }
  if (finishReason === "content_filter") throw new ChatModelError("refusal", "summariser answer was blocked by a content filter");
  const text = unfence(contentText(message.content ?? "").replace(THINK_BLOCK, "").trim());
  if (!text) throw new ChatModelError("empty", "summariser returned an empty answer");
  if (looksLikeRefusal(text)) throw new ChatModelError("refusal", `summariser refused: ${text.slice(0, 200)}`);
  return redactSecrets(text);
}

/** Models sometimes wrap the whole answer in a ```markdown fence. */
function unfence(text: string): string {
  const m = /^```[a-z]*\n([\s\S]*)\n```$/i.exec(text);
  return m ? m[1]!.trim() : text;
}

function looksLikeRefusal(text: string): boolean {
  if (text.includes("## ")) return false;
  const head = text.slice(0, 400);
  return REFUSAL_OPENING.test(head) && /summar|checkpoint/i.test(head);
}

/** Settle as soon as `signal` aborts, even if the model ignores the signal. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(abortReason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {});
      reject(abortReason(signal));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

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
