import type { HostRuntime } from "../runtime.js";
import { describeError } from "../errors.js";

// Hooks through which the engine's public figures legitimately change.
const WRITING_HOOKS = new Set(["updateFromResponse", "updateModel", "onSessionReset", "onSessionStart", "onSessionEnd"]);

/**
 * Call an engine hook fail-open: a throw (or a rejected promise) is logged,
 * reported as `hook.failed`, and replaced by `fallback`.
 */
export async function callHook<T>(
  runtime: HostRuntime,
  sessionId: string,
  turnId: string | null,
  hook: string,
  fallback: T,
  fn: () => T | Promise<T>,
): Promise<T> {
  try {
    return WRITING_HOOKS.has(hook) ? await runtime.figures.aroundAsync(fn) : await fn();
  } catch (error) {
    reportHookFailure(runtime, sessionId, turnId, hook, error);
    return fallback;
  }
}

/** The synchronous twin of `callHook`, for hooks on the hot path. */
export function callHookSync<T>(
  runtime: HostRuntime,
  sessionId: string,
  turnId: string | null,
  hook: string,
  fallback: T,
  fn: () => T,
): T {
  try {
    return WRITING_HOOKS.has(hook) ? runtime.figures.around(fn) : fn();
  } catch (error) {
    reportHookFailure(runtime, sessionId, turnId, hook, error);
    return fallback;
  }
}

export function reportHookFailure(runtime: HostRuntime, sessionId: string, turnId: string | null, hook: string, error: unknown): void {
  const message = describeError(error);
  runtime.logger.warn(`context engine ${hook} failed; continuing without it`, { sessionId, engine: safeName(runtime), error: message });
  runtime.bus.emit({ type: "hook.failed", sessionId, turnId, hook, error: message });
}

function safeName(runtime: HostRuntime): string {
  try {
    return String(runtime.engine.name);
  } catch {
    return "(unknown)";
  }
}
