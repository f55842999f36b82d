import { checkCompressResult, describeError, lastUserMessage } from "@context-engine/core";
import type { ContextEngine, Logger, Message, TokenCounter } from "@context-engine/core";
import { cloneMessages } from "../clone.js";
import type { EventBus } from "../event-bus.js";
import type { CompactionTrigger } from "../events.js";
import type { EngineFigures } from "./engine-figures.js";

export interface CompactionRequest {
  trigger: CompactionTrigger;
  force: boolean;
  focusTopic: string | null;
  /** The host's best figure for the current prompt size; defaults to an estimate. */
  currentTokens?: number;
  turnId: string | null;
  /**
   * The user message the result must keep: the turn's, when the pass runs
   * inside one. Absent: the latest user message of the conversation.
   */
  requiredUser?: Message | null;
}

export type CompactionOutcome =
  | { status: "committed"; messages: Message[]; tokensBefore: number; tokensAfter: number; durationMs: number }
  | { status: "unchanged"; tokensBefore: number; durationMs: number }
  | { status: "timed_out"; tokensBefore: number; durationMs: number }
  | { status: "failed"; tokensBefore: number; durationMs: number; error: string }
  | { status: "aborted"; tokensBefore: number; durationMs: number };

export interface CompactionDeps {
  engine: ContextEngine;
  sessionId: string;
  counter: TokenCounter;
  bus: EventBus;
  logger: Logger;
  /** 0 disables the timeout. */
  timeoutSeconds: number;
  /** The input budget of the next request, passed on as `budgetTokens` (0: unknown, not passed). */
  budgetTokens?: number;
  /** When each live message was said (`CompressOptions.messageTimes`), when known. */
  messageTimes?: (number | null)[] | undefined;
  /** The caller's signal (turn interrupt, shutdown); aborts the pass too. */
  signal?: AbortSignal | undefined;
  /** The engine's public figures: what an abandoned pass wrote is undone, nothing else. */
  figures: EngineFigures;
  /**
   * Called exactly once, when the engine's `compress` call has settled (at
   * once if it never ran), so the caller's one-pass-per-session lock also
   * covers a pass the host gave up on but the engine is still running.
   */
  onSettled?: () => void;
}

class Timeout extends Error {
  override readonly name = "TimeoutError";
}

/**
 * One compression pass, run the way the contract's thread-safety section
 * asks: on a private deep snapshot of the live messages, with an
 * AbortSignal, and under the host timeout. Only a pass that finishes in time
 * and returns a usable list yields `committed`; the caller then publishes it.
 * A pass that finishes after the timeout is logged and dropped.
 */
export async function runCompaction(
  live: readonly Message[],
  request: CompactionRequest,
  deps: CompactionDeps,
): Promise<CompactionOutcome> {
  const { engine, bus, sessionId } = deps;
  const tokensBefore = request.currentTokens ?? deps.counter.countMessages(live);
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  bus.emit({
    type: "compaction.started",
    sessionId,
    turnId: request.turnId,
    trigger: request.trigger,
    force: request.force,
    focusTopic: request.focusTopic,
    tokensBefore,
    messagesBefore: live.length,
  });

  let settled = false;
  const settle = () => {
    if (settled) return;
    settled = true;
    deps.onSettled?.();
  };
  if (deps.signal?.aborted) {
    // Cancelled before it started: the engine is not called at all.
    settle();
    return { status: "aborted", tokensBefore, durationMs: elapsed() };
  }
  let snapshot: Message[];
  try {
    snapshot = cloneMessages(live);
  } catch (error) {
    settle();
    throw error;
  }
  const figures = deps.figures.snapshot();
  const controller = new AbortController();
  const outer = deps.signal;
  const onOuterAbort = () => controller.abort(outer?.reason);
  outer?.addEventListener("abort", onOuterAbort, { once: true });

  let timer: ReturnType<typeof setTimeout> | undefined;
  const pass = Promise.resolve().then(() =>
    engine.compress(snapshot, {
      currentTokens: tokensBefore,
      ...(request.focusTopic ? { focusTopic: request.focusTopic } : {}),
      force: request.force,
      signal: controller.signal,
      sessionId,
      ...(deps.budgetTokens && deps.budgetTokens > 0 ? { budgetTokens: deps.budgetTokens } : {}),
      ...(deps.messageTimes ? { messageTimes: deps.messageTimes } : {}),
    }),
  );
  pass.then(settle, settle);
  const stop = new Promise<never>((_, reject) => {
    if (deps.timeoutSeconds > 0) {
      timer = setTimeout(() => reject(new Timeout()), deps.timeoutSeconds * 1000);
    }
    controller.signal.addEventListener("abort", () => reject(controller.signal.reason ?? new Error("aborted")), { once: true });
  });
  stop.catch(() => {});

  let result: unknown;
  try {
    result = await Promise.race([pass, stop]);
  } catch (error) {
    const timedOut = error instanceof Timeout;
    const aborted = !timedOut && controller.signal.aborted;
    if (timedOut || aborted) {
      if (!controller.signal.aborted) controller.abort(new Error(`compression timed out after ${deps.timeoutSeconds}s`));
      // Undo what the abandoned pass wrote to the engine's public figures
      // (now, and again when it settles); legitimate writes since are kept.
      deps.figures.revert(figures);
      const gaveUpAt = performance.now();
      pass.then(
        () => reportLate("result"),
        () => reportLate("error"),
      );
      function reportLate(outcome: "result" | "error") {
        deps.figures.revert(figures);
        deps.logger.warn("a compression pass finished after the host gave up on it; its result was discarded", {
          sessionId,
          trigger: request.trigger,
        });
        bus.emit({
          type: "compaction.discarded",
          sessionId,
          trigger: request.trigger,
          lateByMs: performance.now() - gaveUpAt,
          outcome,
        });
      }
      if (timedOut) {
        bus.emit({
          type: "compaction.timed_out",
          sessionId,
          turnId: request.turnId,
          trigger: request.trigger,
          durationMs: elapsed(),
          timeoutSeconds: deps.timeoutSeconds,
          tokensBefore,
        });
        deps.logger.warn(`context compression timed out after ${deps.timeoutSeconds}s; no messages were dropped`, { sessionId });
        return { status: "timed_out", tokensBefore, durationMs: elapsed() };
      }
      return { status: "aborted", tokensBefore, durationMs: elapsed() };
    }
    const message = describeError(error);
    bus.emit({ type: "compaction.failed", sessionId, turnId: request.turnId, trigger: request.trigger, durationMs: elapsed(), tokensBefore, error: message });
    deps.logger.warn("context compression failed; no messages were dropped", { sessionId, error: message });
    return { status: "failed", tokensBefore, durationMs: elapsed(), error: message };
  } finally {
    if (timer) clearTimeout(timer);
    outer?.removeEventListener("abort", onOuterAbort);
  }

  const durationMs = elapsed();
  // The snapshot handed back unchanged: a no-op.
  if (result === snapshot && sameContent(snapshot, live)) {
    bus.emit({ type: "compaction.unchanged", sessionId, turnId: request.turnId, trigger: request.trigger, durationMs, tokensBefore });
    return { status: "unchanged", tokensBefore, durationMs };
  }
  const requiredUser = request.requiredUser !== undefined ? request.requiredUser : (lastUserMessage(live as Message[])?.message ?? null);
  const check = checkCompressResult(result, { requiredUser });
  if (!check.ok) {
    const error = `compress returned an unusable list: ${check.reason}`;
    bus.emit({ type: "hook.failed", sessionId, turnId: request.turnId, hook: "compress", reason: "invalid_result", error });
    bus.emit({ type: "compaction.failed", sessionId, turnId: request.turnId, trigger: request.trigger, durationMs, tokensBefore, error });
    deps.logger.warn("context compression result rejected; no messages were dropped", { sessionId, error });
    return { status: "failed", tokensBefore, durationMs, error };
  }
  // A fresh copy: an engine that keeps the list cannot change history later.
  const messages = check.messages;
  const tokensAfter = deps.counter.countMessages(messages);
  return { status: "committed", messages, tokensBefore, tokensAfter, durationMs };
}

function sameContent(a: readonly Message[], b: readonly Message[]): boolean {
  if (a.length !== b.length) return false;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}
