/**
 * The one retry policy of the host: exponential backoff with jitter, capped,
 * where a provider's Retry-After wins (also capped). Used by the host's turn
 * loop and by `createOpenAIChatModel().complete`.
 */
export interface BackoffPolicy {
  baseDelayMs: number;
  maxDelayMs: number;
}

/** The wait before retry number `attempt` (0-based). */
export function backoffMs(attempt: number, policy: BackoffPolicy, retryAfterMs: number | null, random: () => number = Math.random): number {
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  const jittered = backoff * (0.75 + random() * 0.5);
  return Math.min(policy.maxDelayMs, retryAfterMs ?? jittered);
}

/** Wait `ms`; resolves early (never rejects) when `signal` aborts, so callers check it afterwards. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
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
