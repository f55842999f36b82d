import { describeError } from "@context-engine/core";

export class EngineTimeoutError extends Error {
  override readonly name = "EngineTimeoutError";
}

export type Bounded<T> = { ok: true; value: T } | { ok: false; error: string; timedOut: boolean };

/**
 * Run one engine call, bounded: a throw, a rejection, a timeout or the
 * caller's abort all end as `{ ok: false }` instead of escaping. The call gets
 * a signal that aborts when we stop waiting, so a cooperative engine stops
 * too; a late result is dropped. `timeoutMs <= 0` disables the timeout.
 */
export async function bounded<T>(
  call: (signal: AbortSignal) => T | Promise<T>,
  timeoutMs: number,
  outer?: AbortSignal,
): Promise<Bounded<T>> {
  const controller = new AbortController();
  if (outer?.aborted) return { ok: false, error: "aborted by the caller", timedOut: false };
  const onOuterAbort = () => controller.abort(outer?.reason);
  outer?.addEventListener("abort", onOuterAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const work = Promise.resolve().then(() => call(controller.signal));
    work.catch(() => {});
    const stop = new Promise<never>((_, reject) => {
      if (timeoutMs > 0) timer = setTimeout(() => reject(new EngineTimeoutError(`no answer within ${timeoutMs} ms`)), timeoutMs);
      controller.signal.addEventListener("abort", () => reject(new Error("aborted by the caller")), { once: true });
    });
    stop.catch(() => {});
    return { ok: true, value: await Promise.race([work, stop]) };
  } catch (error) {
    const timedOut = error instanceof EngineTimeoutError;
    if (!controller.signal.aborted) controller.abort(error);
    return { ok: false, error: describeError(error), timedOut };
  } finally {
    if (timer) clearTimeout(timer);
    outer?.removeEventListener("abort", onOuterAbort);
  }
}

/** A synchronous engine call that must never throw into the host loop. */
export function guarded<T>(call: () => T, fallback: T): { value: T; error: string | null } {
  try {
    return { value: call(), error: null };
  } catch (error) {
    return { value: fallback, error: describeError(error) };
  }
}
