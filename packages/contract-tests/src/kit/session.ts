import type { ContextEngine, Message, Usage } from "@context-engine/core";
import { countTokens } from "./util.js";
import type { Harness } from "./harness.js";

let counter = 0;

/** A session id unique within the process. */
export function newSessionId(label: string): string {
  counter++;
  return `contract-${label}-${process.pid}-${counter}`;
}

/** Start a session the way a host does. */
export async function startSession(h: Harness, engine: ContextEngine, sessionId: string, dataDir?: string): Promise<void> {
  await engine.onSessionStart(sessionId, {
    platform: "contract-tests",
    model: h.model,
    contextLength: engine.contextLength,
    conversationId: sessionId,
    ...(dataDir ? { dataDir } : {}),
  });
}

/** A usage figure for a prompt of these messages. */
export function usageFor(messages: readonly Message[], completion = 120): Usage {
  const prompt = countTokens(messages);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** Indices where each user turn ends (exclusive), i.e. each prefix a host would report after a turn. */
export function turnEnds(messages: readonly Message[]): number[] {
  const ends: number[] = [];
  for (let i = 1; i < messages.length; i++) if (messages[i]!.role === "user") ends.push(i);
  ends.push(messages.length);
  return ends.filter((end) => messages.slice(0, end).some((m) => m.role === "user"));
}

/** Report every finished turn of `messages` to the engine, as a host does after each turn. */
export async function replayTurns(engine: ContextEngine, messages: readonly Message[], sessionId: string): Promise<void> {
  let turn = 0;
  for (const end of turnEnds(messages)) {
    const prefix = structuredClone(messages.slice(0, end) as Message[]);
    engine.updateFromResponse(usageFor(prefix));
    await engine.onTurnComplete(prefix, usageFor(prefix), { sessionId, turnId: `${sessionId}-t${++turn}`, apiCallCount: 1 });
  }
}
