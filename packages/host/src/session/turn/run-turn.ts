import { toolCallsOf } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { HostError } from "../../errors.js";
import type { TurnSession } from "../types.js";
import { finishTurn } from "./finish.js";
import type { FinishedTurn } from "./finish.js";
import { postToolGate } from "./gates.js";
import { runPreflight } from "./preflight.js";
import { requestResponse } from "./provider-call.js";
import { appendMessage, createTurnState, endTurn } from "./state.js";
import type { TurnState } from "./state.js";
import { argumentsProblem, withRefusedArguments } from "./tool-bounds.js";
import { runTools } from "./tools.js";

/**
 * One user turn: preflight compaction, then the tool loop (request → tools
 * → post-tool gate) until the model answers without tool calls, then
 * `onTurnComplete`. Never throws for provider or engine failures: they end
 * the turn with a status and a typed error. `onTurnComplete` is handed back
 * to run after the answer is returned.
 */
export async function runTurn(session: TurnSession, user: Message, turnId: string, signal: AbortSignal | undefined): Promise<FinishedTurn> {
  const state = createTurnState(session, user, turnId, signal);
  session.messages.push(user);
  session.runtime.clock.stampNew(user);
  session.runtime.bus.emit({ type: "turn.started", sessionId: session.id, turnId, message: user });
  await runPreflight(state);
  while (!state.done) await loopStep(state);
  return finishTurn(state);
}

/** One model request and, when it asks for tools, their results and the post-tool gate. */
async function loopStep(state: TurnState): Promise<void> {
  const { maxIterations } = state.session.runtime.config;
  if (state.steps >= maxIterations) {
    endTurn(state, "failed", "iteration_limit", new HostError("iteration_limit", `the turn reached the limit of ${maxIterations} model requests`));
    return;
  }
  state.steps++;
  const response = await requestResponse(state);
  if (!response) return;
  const calls = toolCallsOf(response.message);
  // Arguments too large or too deep to parse safely: refused, and not kept (the model gets a tool error).
  const refused = new Map<string, string>();
  for (const call of calls) {
    const problem = argumentsProblem(call.function.arguments);
    if (problem !== null) refused.set(call.id, problem);
  }
  const message = withRefusedArguments(response.message, refused) as typeof response.message;
  appendMessage(state, message);
  state.finalMessage = message;
  if (calls.length === 0) {
    const reason = response.finishReason === "length" || response.finishReason === "content_filter" ? response.finishReason : "completed";
    endTurn(state, "completed", reason);
    return;
  }
  await runTools(state, calls, refused);
  if (state.done) return;
  await postToolGate(state);
}
