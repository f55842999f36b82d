import { DeadlineExceededError, describeError, withDeadline } from "@context-engine/core";
import type { HookFailureReason } from "../events.js";
import type { HostRuntime } from "../runtime.js";
import type { SkipReason } from "./hook-breaker.js";

// Hooks through which the engine's public figures legitimately change.
const WRITING_HOOKS = new Set(["updateFromResponse", "updateModel", "onSessionReset", "onSessionStart", "onSessionEnd"]);

/** The bound for `hook` from `hookTimeouts` (0: none). */
export function hookTimeoutMs(runtime: HostRuntime, hook: string): number {
  const value = (runtime.config.hookTimeouts as Record<string, number | undefined>)[hook];
  return typeof value === "number" ? value : 0;
}

/**
 * Await an engine call under its bound. Rejects with DeadlineExceededError
 * when the bound passes first; a late settle is reported as `hook.late`.
 */
export async function bounded<T>(runtime: HostRuntime, sessionId: string, turnId: string | null, hook: string, fn: () => T | Promise<T>): Promise<T> {
  const breaker = runtime.hookBreakers.for(sessionId);
  const skip = breaker.skipReason(hook, turnId);
  if (skip) throw new HookSkippedError(hook, skip);
  const call = Promise.resolve().then(fn);
  try {
    const value = await withDeadline(call, hookTimeoutMs(runtime, hook), `context engine ${hook}`, (outcome, lateByMs) => {
      runtime.logger.warn(`context engine ${hook} settled after the host gave up on it; its outcome was ignored`, { sessionId, outcome });
      runtime.bus.emit({ type: "hook.late", sessionId, turnId, hook, outcome, lateByMs });
    });
    breaker.recordSettled(hook);
    return value;
  } catch (error) {
    if (error instanceof DeadlineExceededError) breaker.recordTimeout(hook, turnId);
    else breaker.recordSettled(hook);
    throw error;
  }
}

/** A hook call the host did not make: it timed out earlier in this turn, or its breaker is open. */
export class HookSkippedError extends Error {
  constructor(
    readonly hook: string,
    readonly skipReason: SkipReason,
  ) {
    super(`context engine ${hook} not called: it ${skipReason === "breaker open" ? "timed out repeatedly (breaker open; retried later)" : "timed out earlier in this turn"}`);
    this.name = "HookSkippedError";
  }
}

/**
 * Call an engine hook fail-open and bounded: a throw, a rejection or a call
 * past its bound is logged, reported as `hook.failed`, and replaced by
 * `fallback`.
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
    const run = () => bounded(runtime, sessionId, turnId, hook, fn);
    return WRITING_HOOKS.has(hook) ? await runtime.figures.aroundAsync(run) : await run();
  } catch (error) {
    reportHookFailure(runtime, sessionId, turnId, hook, error);
    return fallback;
  }
}

/** The synchronous twin of `callHook`, for hooks on the hot path (a sync call cannot be bounded). */
export function callHookSync<T>(
  runtime: HostRuntime,
  sessionId: string,
  turnId: string | null,
  hook: string,
  fallback: T,
  fn: () => T,
): T {
  try {
    const value = WRITING_HOOKS.has(hook) ? runtime.figures.around(fn) : fn();
    if (isThenable(value)) {
      // A sync hook that answered with a promise: not awaited, but its rejection must not go unhandled.
      Promise.resolve(value).catch((error: unknown) => reportHookFailure(runtime, sessionId, turnId, hook, error));
      return fallback;
    }
    return value;
  } catch (error) {
    reportHookFailure(runtime, sessionId, turnId, hook, error);
    return fallback;
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === "object" || typeof value === "function") && typeof (value as { then?: unknown }).then === "function";
}

export function failureReasonOf(error: unknown): HookFailureReason {
  if (error instanceof HookSkippedError) return "skipped";
  return error instanceof DeadlineExceededError ? "timeout" : "threw";
}

export function reportHookFailure(
  runtime: HostRuntime,
  sessionId: string,
  turnId: string | null,
  hook: string,
  error: unknown,
  reason: HookFailureReason = failureReasonOf(error),
): void {
  const message = describeError(error);
  runtime.logger.warn(`context engine ${hook} failed (${reason}); continuing without it`, { sessionId, engine: safeName(runtime), error: message });
  runtime.bus.emit({ type: "hook.failed", sessionId, turnId, hook, reason, error: message });
}

function safeName(runtime: HostRuntime): string {
  try {
    return String(runtime.engine.name);
  } catch {
    return "(unknown)";
  }
}
