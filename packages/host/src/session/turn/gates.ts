import type { CompactionOutcome } from "../../compaction/runner.js";
import type { CompactionTrigger } from "../../events.js";
import { callHookSync } from "../engine-calls.js";
import { overridesBase } from "../overrides.js";
import { pruneToolResults } from "../prune.js";
import type { TurnState } from "./state.js";

/** The conversation's estimate plus tool definitions. */
export function estimateConversation(state: TurnState): number {
  const { session } = state;
  return session.runtime.counter.countMessages(session.messages) + session.toolsTokens;
}

export function shouldCompress(state: TurnState, tokens: number): boolean {
  const { runtime } = state.session;
  // The user just put messages back: the threshold does not take them away again (the window still does).
  if (state.session.holdThreshold) return false;
  return callHookSync<unknown>(runtime, state.session.id, state.turnId, "shouldCompress", false, () => runtime.engine.shouldCompress(tokens)) === true;
}

/** Report, once per reason and turn, that the engine blocks compression over its threshold. */
export function reportBlocked(state: TurnState, tokens: number): void {
  const { runtime, id: sessionId } = state.session;
  const engine = runtime.engine;
  if (!overridesBase(engine, "shouldCompressInfo")) return;
  const info = callHookSync(runtime, sessionId, state.turnId, "shouldCompressInfo", null, () => engine.shouldCompressInfo(tokens));
  const reason = info && typeof info.reason === "string" ? info.reason : null;
  if (reason && !state.blockedReasons.has(reason)) {
    state.blockedReasons.add(reason);
    runtime.logger.warn("context is over the compression threshold but compression is blocked", { sessionId, reason, tokens });
    runtime.bus.emit({ type: "compaction.blocked", sessionId, turnId: state.turnId, reason, tokens });
  }
}

/** Whether another pass may run: not after a timeout, not past the attempt cap; forced passes ignore a stall. */
export function canCompact(state: TurnState, force = false): boolean {
  const { config } = state.session.runtime;
  return !state.timedOut && (force || !state.stalled) && state.compactionAttempts < config.maxCompressionAttempts && !state.signal?.aborted;
}

/**
 * Whether the one forced pass for a request that cannot fit the window may
 * run. The per-turn attempt cap bounds automatic passes (thrash); it does not
 * apply here, because the alternative is failing the turn for size, and the
 * pass is bounded by its own rule (once per model request).
 */
export function canCompactOverWindow(state: TurnState): boolean {
  return !state.timedOut && !state.signal?.aborted;
}

/** One pass; on commit the turn's user message is re-anchored (by identity, else by content). */
export async function compact(state: TurnState, trigger: CompactionTrigger, tokens: number, force: boolean): Promise<CompactionOutcome | { status: "busy" }> {
  const { session } = state;
  state.compactionAttempts++;
  const outcome = await session.compact(
    { trigger, force, focusTopic: null, currentTokens: tokens, turnId: state.turnId, requiredUser: state.incoming },
    state.signal,
  );
  if (outcome.status === "committed") {
    state.compactions++;
    state.checkedClean = false;
    const incoming = state.incoming;
    if (incoming && !session.messages.includes(incoming)) {
      const text = JSON.stringify(incoming.content);
      state.incoming = [...session.messages].reverse().find((m) => m.role === "user" && JSON.stringify(m.content) === text) ?? null;
    }
  } else if (outcome.status === "timed_out") state.timedOut = true;
  else if (!force) state.stalled = true;
  return outcome;
}

/** After tool results: compact when over threshold, else the engine's cheap tool-output trim. */
export async function postToolGate(state: TurnState): Promise<void> {
  const { session } = state;
  if (session.lastPromptTokens === -1) return;
  const pressure = session.lastPromptTokens > 0 ? session.lastPromptTokens : estimateConversation(state);
  if (canCompact(state) && shouldCompress(state, pressure)) {
    await compact(state, "post_tool", pressure, false);
  } else {
    reportBlocked(state, pressure);
    await pruneToolResults(session, state.turnId, pressure);
  }
}
