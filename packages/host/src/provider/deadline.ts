import { ChatModelError } from "@context-engine/core";

/**
 * A bound on a whole response (`request_timeout_seconds`): headers, body and
 * every streamed piece, whatever trickles in meanwhile (SSE keep-alive
 * comments, a byte at a time). Its signal aborts the request when the bound
 * passes or when the caller's signal aborts; `expired` tells the two apart.
 */
export interface ResponseDeadline {
  readonly signal: AbortSignal;
  /** True once the bound passed (not merely the caller's abort). */
  readonly expired: boolean;
  /** The error to report once `expired`. */
  error(baseURL: string): ChatModelError;
  /** Stop the timer and unlink from the caller's signal. */
  clear(): void;
}

export function startDeadline(ms: number, outer: AbortSignal | undefined): ResponseDeadline {
  const controller = new AbortController();
  let expired = false;
  const onOuterAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener("abort", onOuterAbort, { once: true });
  const timer =
    ms > 0
      ? setTimeout(() => {
          expired = true;
          controller.abort(new ChatModelError("timeout", `the provider's answer did not complete within ${formatSeconds(ms)}`));
        }, ms)
      : undefined;
  return {
    signal: controller.signal,
    get expired() {
      return expired;
    },
    error(baseURL) {
      return new ChatModelError(
        "timeout",
        `the provider's answer did not complete within ${formatSeconds(ms)} (request_timeout_seconds)${baseURL ? ` (${baseURL})` : ""}`,
      );
    },
    clear() {
      clearTimeout(timer);
      outer?.removeEventListener("abort", onOuterAbort);
    },
  };
}

function formatSeconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}
