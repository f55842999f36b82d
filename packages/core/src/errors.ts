/**
 * Small error helpers every package of the project shares: one way to turn
 * any thrown value into a line of text, and one way to race a promise
 * against an AbortSignal.
 */

/** A short, single-line description of any thrown value (never throws). */
export function describeError(error: unknown): string {
  try {
    if (error instanceof Error) return error.message || error.name;
    if (typeof error === "string") return error;
    return JSON.stringify(error) ?? String(error);
  } catch {
    try {
      return String(error);
    } catch {
      return "(an error that cannot be described)";
    }
  }
}

/** The reason an aborted signal carries, as an Error named AbortError when it has none. */
export function abortReason(signal: AbortSignal): unknown {
  if (signal.reason !== undefined) return signal.reason;
  const error = new Error("the operation was aborted");
  error.name = "AbortError";
  return error;
}

/**
 * Settle as soon as `signal` aborts, even when `promise` ignores the signal:
 * rejects with the signal's reason. The abandoned promise's own rejection is
 * swallowed so it never surfaces as unhandled.
 */
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

/** `raceAbort` for callers that treat an abort as "no result": resolves null instead of rejecting. */
export function raceAbortOrNull<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T | null> {
  return raceAbort(promise, signal).catch((error: unknown) => {
    if (signal?.aborted) return null;
    throw error;
  });
}

/** Thrown by `withDeadline` when the bound passes first. */
export class DeadlineExceededError extends Error {
  override readonly name = "DeadlineExceededError";
  readonly timeoutMs: number;
  constructor(what: string, timeoutMs: number) {
    super(`${what} did not settle within ${timeoutMs} ms`);
    this.timeoutMs = timeoutMs;
  }
}

/**
 * Race `promise` against a timer of `timeoutMs` (0 or less: no bound). On
 * timeout, rejects with DeadlineExceededError; `onLate` then hears how the
 * abandoned promise settled, once, whenever it does.
 */
export function withDeadline<T>(
  promise: Promise<T>,
  timeoutMs: number,
  what: string,
  onLate?: (outcome: "resolved" | "rejected", lateByMs: number) => void,
): Promise<T> {
  if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) return promise;
  return new Promise<T>((resolve, reject) => {
    let timedOutAt = -1;
    const timer = setTimeout(() => {
      timedOutAt = performance.now();
      reject(new DeadlineExceededError(what, timeoutMs));
    }, timeoutMs);
    const settle = (outcome: "resolved" | "rejected") => {
      if (timedOutAt < 0) return false;
      onLate?.(outcome, performance.now() - timedOutAt);
      return true;
    };
    promise.then(
      (value) => {
        if (settle("resolved")) return;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        if (settle("rejected")) return;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
