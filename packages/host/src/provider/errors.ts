import { ChatModelError } from "@context-engine/core";
import type { ChatModelErrorKind } from "@context-engine/core";

/** A ChatModelError may carry the provider's Retry-After, in milliseconds. */
export type ChatModelErrorWithRetry = ChatModelError & { retryAfterMs?: number };

/** Kinds worth another attempt after a pause. `quota` is not: it will not clear by waiting. */
export const RETRYABLE_KINDS: ReadonlySet<ChatModelErrorKind> = new Set(["rate_limit", "overloaded", "server_error", "network", "timeout"]);

export function isRetryable(error: ChatModelError): boolean {
  return RETRYABLE_KINDS.has(error.kind);
}

export function retryAfterMsOf(error: unknown): number | null {
  const v = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : null;
}

// Phrases providers use when a prompt does not fit the window.
const CONTEXT_LENGTH_PATTERNS = [
  /context[_ ]length/i,
  /context window/i,
  /maximum context/i,
  /too many tokens/i,
  /prompt is too long/i,
  /input is too long/i,
  /reduce the length/i,
  /exceeds? the (?:model'?s? )?(?:maximum|max)/i,
  /token limit/i,
];

export function looksLikeContextLength(text: string | null | undefined): boolean {
  if (!text) return false;
  return CONTEXT_LENGTH_PATTERNS.some((re) => re.test(text));
}

/** Whether an error is an abort (AbortController, DOMException, SDK user abort). */
export function isAbortError(error: unknown): boolean {
  if (!error || typeof error !== "object") return false;
  const name = (error as { name?: unknown }).name;
  return name === "AbortError" || name === "APIUserAbortError";
}

/**
 * Any thrown value as a ChatModelError: typed errors pass through, aborts
 * become `aborted`, anything else `unknown`. Used for chat models the host
 * did not build (a scripted model in replay, a custom adapter).
 */
export function toChatModelError(error: unknown, signal?: AbortSignal): ChatModelError {
  if (ChatModelError.is(error)) return error;
  if (signal?.aborted || isAbortError(error)) {
    return new ChatModelError("aborted", "the request was cancelled", { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  if (looksLikeContextLength(message)) return new ChatModelError("context_length", message, { cause: error });
  return new ChatModelError("unknown", message || "the chat model failed", { cause: error });
}
