/** Default limit for a plugin's import and its `register(ctx)`; a hung plugin must not hang the host. */
export const DEFAULT_PLUGIN_TIMEOUT_MS = 30_000;

export class PluginTimeoutError extends Error {
  override readonly name = "PluginTimeoutError";
}

/** Settle with `work`, or reject after `ms` (the work itself cannot be cancelled and is abandoned). */
export function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  if (!(ms > 0) || !Number.isFinite(ms)) return work;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PluginTimeoutError(`${what} did not finish within ${ms} ms`)), ms);
    timer.unref?.();
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
