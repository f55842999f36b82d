/**
 * A signal that aborts after `ms` (a `TimeoutError`, as `AbortSignal.timeout` gives) or when `stop` aborts,
 * and `clear()` to end it once the work is done.
 *
 * Why not `AbortSignal.any([stop, AbortSignal.timeout(ms)])`: Node 20 holds the signals it combines weakly,
 * so a timeout signal nothing else references can be garbage-collected before it fires, and the bound is
 * silently gone (seen: a 100 ms query bound waited the provider's whole second after a collection). A plain
 * timer keeps its controller alive until it fires or is cleared.
 */
export function deadlineSignal(ms: number, stop?: AbortSignal): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const onStop = () => controller.abort(stop!.reason);
  const timer = setTimeout(() => controller.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError")), Math.max(0, ms));
  if (stop?.aborted) onStop();
  else stop?.addEventListener("abort", onStop, { once: true });
  return {
    signal: controller.signal,
    clear() {
      clearTimeout(timer);
      stop?.removeEventListener("abort", onStop);
    },
  };
}
