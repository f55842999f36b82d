import type { Message } from "@context-engine/core";
import { callHook } from "./engine-calls.js";
import { overridesBase } from "./overrides.js";
import type { TurnSession } from "./types.js";

/** The engine's deterministic tool-output trim; committed only when it returns a new list and a count. */
export async function pruneToolResults(session: TurnSession, turnId: string, pressure: number): Promise<void> {
  const { runtime } = session;
  const engine = runtime.engine;
  if (!overridesBase(engine, "pruneToolResultsOnly")) return;
  const before = session.messages;
  const result = await callHook(runtime, session.id, turnId, "pruneToolResultsOnly", null, () =>
    engine.pruneToolResultsOnly(before, { currentTokens: pressure, sessionId: session.id }),
  );
  if (!result || typeof result !== "object") return;
  const { messages, pruned } = result as { messages?: unknown; pruned?: unknown };
  if (!Array.isArray(messages) || messages === before || typeof pruned !== "number" || pruned <= 0) return;
  if (messages.length === 0 || messages.some((m) => !m || typeof m !== "object" || typeof (m as { role?: unknown }).role !== "string")) {
    runtime.logger.warn("pruneToolResultsOnly returned an unusable list; ignored", { sessionId: session.id });
    return;
  }
  const tokensBefore = runtime.counter.countMessages(before);
  session.replaceMessages(messages as Message[]);
  runtime.bus.emit({
    type: "tool_results.pruned",
    sessionId: session.id,
    turnId,
    pruned,
    tokensBefore,
    tokensAfter: runtime.counter.countMessages(session.messages),
  });
}
