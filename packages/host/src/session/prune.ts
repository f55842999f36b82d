import { checkCompressResult, lastUserMessage } from "@context-engine/core";
import { cloneMessages } from "../clone.js";
import { callHook, reportHookFailure } from "./engine-calls.js";
import { overridesBase } from "./overrides.js";
import type { TurnSession } from "./types.js";

/** The engine's deterministic tool-output trim; committed only when it returns a new list and a count. */
export async function pruneToolResults(session: TurnSession, turnId: string, pressure: number): Promise<void> {
  const { runtime } = session;
  const engine = runtime.engine;
  if (!overridesBase(engine, "pruneToolResultsOnly")) return;
  const before = session.messages;
  const copy = cloneMessages(before);
  const messageTimes = runtime.clock.timesOf(before);
  const result = await callHook(runtime, session.id, turnId, "pruneToolResultsOnly", null, () =>
    engine.pruneToolResultsOnly(copy, { currentTokens: pressure, sessionId: session.id, ...(messageTimes ? { messageTimes } : {}) }),
  );
  if (!result || typeof result !== "object") return;
  const { messages, pruned } = result as { messages?: unknown; pruned?: unknown };
  if (!Array.isArray(messages) || typeof pruned !== "number" || pruned <= 0) return;
  const check = checkCompressResult(messages, { requiredUser: lastUserMessage(before)?.message ?? null });
  if (!check.ok) {
    runtime.logger.warn("pruneToolResultsOnly returned an unusable list; ignored", { sessionId: session.id, reason: check.reason });
    reportHookFailure(runtime, session.id, turnId, "pruneToolResultsOnly", new Error(check.reason), "invalid_result");
    return;
  }
  const tokensBefore = runtime.counter.countMessages(before);
  session.replaceMessages(check.messages);
  runtime.bus.emit({
    type: "tool_results.pruned",
    sessionId: session.id,
    turnId,
    pruned,
    tokensBefore,
    tokensAfter: runtime.counter.countMessages(session.messages),
  });
}
