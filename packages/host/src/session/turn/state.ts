import { normalizeUsage } from "@context-engine/core";
import type { AssistantMessage, ChatModelError, Message, Usage } from "@context-engine/core";
import type { HostError } from "../../errors.js";
import type { TurnStatus } from "../../events.js";
import type { TurnSession } from "../types.js";

/** Everything one turn reads and writes, in one place; each step takes it whole. */
export interface TurnState {
  readonly session: TurnSession;
  readonly turnId: string;
  readonly signal: AbortSignal | undefined;
  readonly started: number;
  /** The message that started the turn, re-anchored after each compaction (null when it was compacted away). */
  incoming: Message | null;
  /** Messages this turn appended, as persisted. */
  readonly newMessages: Message[];

  status: TurnStatus;
  exitReason: string;
  error: ChatModelError | HostError | null;
  finalMessage: AssistantMessage | null;
  lastUsage: Usage | null;
  totalUsage: Usage;

  /** Provider calls made (every attempt). */
  apiCalls: number;
  /** Requests assembled (every attempt, also those never sent). */
  requestIndex: number;
  /** Model requests of the tool loop (retries excluded). */
  steps: number;

  compactions: number;
  compactionAttempts: number;
  /** A pass timed out: no more passes this turn. */
  timedOut: boolean;
  /** An automatic pass changed nothing or failed: later automatic passes will not do better. */
  stalled: boolean;
  overflowRetried: boolean;
  /** The conversation was checked against the threshold and not changed since. */
  checkedClean: boolean;
  /** Blocked-compression reasons already reported this turn. */
  readonly blockedReasons: Set<string>;
  /** Set once the turn has ended: the loop stops. */
  done: boolean;
}

export function createTurnState(session: TurnSession, user: Message, turnId: string, signal: AbortSignal | undefined): TurnState {
  return {
    session,
    turnId,
    signal,
    started: performance.now(),
    incoming: user,
    newMessages: [user],
    status: "completed",
    exitReason: "completed",
    error: null,
    finalMessage: null,
    lastUsage: null,
    totalUsage: normalizeUsage({}),
    apiCalls: 0,
    requestIndex: 0,
    steps: 0,
    compactions: 0,
    compactionAttempts: 0,
    timedOut: false,
    stalled: false,
    overflowRetried: false,
    checkedClean: false,
    blockedReasons: new Set(),
    done: false,
  };
}

/** End the turn with a status, a reason and maybe an error. */
export function endTurn(state: TurnState, status: TurnStatus, reason: string, error: ChatModelError | HostError | null = null): void {
  state.status = status;
  state.exitReason = reason;
  state.error = error;
  state.done = true;
}

/** Append a message to the conversation and to the turn's new messages. */
export function appendMessage(state: TurnState, message: Message): void {
  state.session.messages.push(message);
  state.session.runtime.clock.stampNew(message);
  state.newMessages.push(message);
}
