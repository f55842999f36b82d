import { contentText, overridesHook } from "@context-engine/core";
import { cloneMessages } from "../../clone.js";
import { callHook } from "../engine-calls.js";
import type { TurnResult } from "../types.js";
import type { TurnState } from "./state.js";

/** `onTurnComplete` (on copies), the `turn.completed` event, and the turn's result. */
export async function finishTurn(state: TurnState): Promise<TurnResult> {
  const { session, turnId } = state;
  const { runtime } = session;
  const engine = runtime.engine;
  const sessionId = session.id;
  if (overridesHook(engine, "onTurnComplete")) {
    const messages = cloneMessages(session.messages);
    const usage = state.lastUsage === null ? null : { ...state.lastUsage };
    const info = {
      turnId,
      sessionId,
      interrupted: state.status === "interrupted",
      failed: state.status === "failed",
      exitReason: state.exitReason,
      apiCallCount: state.apiCalls,
    };
    await callHook(runtime, sessionId, turnId, "onTurnComplete", undefined, () => engine.onTurnComplete(messages, usage, info));
  }
  const durationMs = performance.now() - state.started;
  const { status, exitReason, lastUsage: usage, totalUsage, apiCalls, finalMessage, error } = state;
  runtime.bus.emit({ type: "turn.completed", sessionId, turnId, status, exitReason, usage, totalUsage, apiCalls, durationMs, finalMessage, error });
  return {
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
}
