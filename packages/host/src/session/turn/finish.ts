import { contentText, overridesHook } from "@context-engine/core";
import { cloneMessages } from "../../clone.js";
import { callHook } from "../engine-calls.js";
import type { TurnResult } from "../types.js";
import type { TurnState } from "./state.js";

export interface FinishedTurn {
  result: TurnResult;
  /**
   * `onTurnComplete` on copies taken now, to run after the answer reached the
   * caller (the session awaits it, within its bound, before its next
   * operation); null when the engine inherits the no-op.
   */
  observe: (() => Promise<void>) | null;
}

/** The `turn.completed` event, the turn's result, and the deferred `onTurnComplete`. */
export function finishTurn(state: TurnState): FinishedTurn {
  const { session, turnId } = state;
  const { runtime } = session;
  const engine = runtime.engine;
  const sessionId = session.id;
  let observe: FinishedTurn["observe"] = null;
  if (overridesHook(engine, "onTurnComplete")) {
    const messages = cloneMessages(session.messages);
    const messageTimes = runtime.clock.timesOf(session.messages);
    const usage = state.lastUsage === null ? null : { ...state.lastUsage };
    const info = {
      turnId,
      sessionId,
      // What this turn added, so an engine stores it by turn rather than by comparing whole lists.
      turnMessages: cloneMessages(state.newMessages),
      interrupted: state.status === "interrupted",
      failed: state.status === "failed",
      exitReason: state.exitReason,
      apiCallCount: state.apiCalls,
      ...(messageTimes ? { messageTimes } : {}),
    };
    observe = () => callHook(runtime, sessionId, turnId, "onTurnComplete", undefined, () => engine.onTurnComplete(messages, usage, info));
  }
  const durationMs = performance.now() - state.started;
  const { status, exitReason, lastUsage: usage, totalUsage, apiCalls, finalMessage, error } = state;
  runtime.bus.emit({ type: "turn.completed", sessionId, turnId, status, exitReason, usage, totalUsage, apiCalls, durationMs, finalMessage, error });
  const result: TurnResult = {
    sessionId,
    turnId,
    status,
    exitReason,
    message: finalMessage,
    text: finalMessage ? contentText(finalMessage.content) : "",
    usage,
    totalUsage,
    apiCalls,
    compactions: state.compactions,
    newMessages: state.newMessages,
    error,
    durationMs,
  };
  return { result, observe };
}
