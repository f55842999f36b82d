import { cloneMessages } from "../../clone.js";
import { callHook } from "../engine-calls.js";
import { overridesBase } from "../overrides.js";
import { canCompact, compact, estimateConversation, reportBlocked, shouldCompress } from "./gates.js";
import type { TurnState } from "./state.js";

/**
 * Turn-start check: compact while over the threshold and making progress,
 * or run a maintenance pass the engine asks for, else note the list as
 * checked so the first pre-API gate can skip it.
 */
export async function runPreflight(state: TurnState): Promise<void> {
  const { session } = state;
  const { runtime } = session;
  const engine = runtime.engine;
  let tokens = estimateConversation(state);
  const maintenance = overridesBase(engine, "shouldCompressPreflight")
    ? await callHook(runtime, session.id, state.turnId, "shouldCompressPreflight", false, () =>
        engine.shouldCompressPreflight(cloneMessages(session.messages)),
      )
    : false;
  if (shouldCompress(state, tokens)) {
    while (canCompact(state)) {
      const outcome = await compact(state, "preflight", tokens, false);
      if (outcome.status !== "committed") break;
      const after = estimateConversation(state);
      const progressed = after < tokens * 0.95;
      tokens = after;
      if (!shouldCompress(state, tokens) || !progressed) break;
    }
  } else if (maintenance === true && !session.holdThreshold && canCompact(state)) {
    await compact(state, "maintenance", tokens, false);
  } else {
    reportBlocked(state, tokens);
    state.checkedClean = true;
  }
}
