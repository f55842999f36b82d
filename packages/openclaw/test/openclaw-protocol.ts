// OpenClaw's call sequence for one turn, as OpenClaw 2026.9.6 runs it (see openclaw-offline.md):
// assemble with the room left for messages and the turn's prompt (history fenced before the
// turn's user entry), assemble again on each model step with the previous result plus the step's
// messages and nearly the whole window, then commitTurn with the window and the accepted turn.
import type { OcAgentMessage, OcAssembleResult, OpenClawContextEngine } from "../src/index.js";

export interface TurnShape {
  sessionId: string;
  window: number;
  /** The room for messages in the turn-start assemble (window − OpenClaw's prompt − reserve). */
  firstBudget: number;
  provider?: string;
  model?: string;
}

export async function openclawTurn(oc: OpenClawContextEngine, shape: TurnShape, history: OcAgentMessage[], prompt: string, turn: OcAgentMessage[], key: string) {
  const settings = { model: { provider: shape.provider ?? "loop", resolved: shape.model ?? "m", requested: shape.model ?? "m" } };
  const ids = { sessionId: shape.sessionId, sessionKey: `agent:main:${shape.sessionId}`, runtimeSettings: settings };
  const first: OcAssembleResult = await oc.assemble({ ...ids, messages: history, tokenBudget: shape.firstBudget, model: shape.model ?? "m", prompt });
  const steps: OcAssembleResult[] = [];
  // One model step per assistant message after the first: the loop hook passes what the model saw so far.
  for (let i = 1; i < turn.length; i++) {
    if (turn[i]!.role !== "assistant") continue;
    const seen = [...first.messages, ...turn.slice(0, i)];
    steps.push(await oc.assemble({ ...ids, messages: seen, tokenBudget: shape.window - 100 * (steps.length + 1), model: shape.model ?? "m" }));
  }
  const committed = await oc.commitTurn({ ...ids, advancementKey: key, messages: turn, runtimeContext: { tokenBudget: shape.window } });
  return { first, steps, committed };
}
