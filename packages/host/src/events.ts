import type { ChatModelError, Message, Usage } from "@context-engine/core";
import type { HostError } from "./errors.js";
import type { StreamDelta } from "./provider/stream.js";

/** What triggered a compaction pass. */
export type CompactionTrigger =
  | "preflight" // turn start, over threshold on the estimate
  | "maintenance" // turn start, the engine's own shouldCompressPreflight
  | "pre_api" // before a provider request, over threshold
  | "post_tool" // after tool results, over threshold on real usage
  | "overflow" // the provider rejected the request as too long
  | "over_window" // the assembled request would not fit the window
  | "manual"; // /compress

export type TurnStatus = "completed" | "failed" | "interrupted";

interface Base {
  sessionId: string;
  /** Milliseconds since the epoch. */
  at: number;
}
interface InTurn extends Base {
  turnId: string;
}

export interface SessionStartedEvent extends Base {
  type: "session.started";
  model: string;
  contextLength: number;
  engine: string;
  engineTools: string[];
}
export interface SessionResetEvent extends Base {
  type: "session.reset";
  previousSessionId: string;
}
export interface SessionEndedEvent extends Base {
  type: "session.ended";
  reason: "end" | "reset" | "expired" | "close";
  messageCount: number;
}
export interface ModelSwitchedEvent extends Base {
  type: "model.switched";
  model: string;
  contextLength: number;
  previousModel: string;
}

export interface TurnStartedEvent extends InTurn {
  type: "turn.started";
  message: Message;
}

/** One provider request, with the FINAL list actually sent. Treat as read-only. */
export interface ProviderRequestEvent extends InTurn {
  type: "provider.request";
  /** 1-based request number within the turn (a retry is a new request). */
  requestIndex: number;
  /** 0 for the first attempt of a step, 1+ for retries. */
  attempt: number;
  model: string;
  messages: readonly Message[];
  tools: ReadonlyArray<Record<string, unknown>>;
  /** Messages plus tool definitions, with the host's token counter. */
  estimatedTokens: number;
  selection: "applied" | "ignored" | "not_implemented";
  /** Repairs the sanitisers made to this request (empty when none). */
  repairs: readonly string[];
  cacheBreakpoints: number;
}
export interface ProviderResponseEvent extends InTurn {
  type: "provider.response";
  requestIndex: number;
  message: Message;
  usage: Usage | null;
  finishReason: string | null;
  durationMs: number;
}
/** A piece of a streamed answer: text, or progress of a tool call being written. */
export interface ProviderDeltaEvent extends InTurn {
  type: "provider.delta";
  requestIndex: number;
  delta: StreamDelta;
}
export interface ProviderErrorEvent extends InTurn {
  type: "provider.error";
  requestIndex: number;
  error: ChatModelError;
  kind: string;
  willRetry: boolean;
  retryInMs: number | null;
}
export interface RequestOverBudgetEvent extends InTurn {
  type: "request.over_budget";
  error: HostError & { estimatedTokens: number; contextLength: number };
  estimatedTokens: number;
  contextLength: number;
}

export interface SelectionAppliedEvent extends InTurn {
  type: "selection.applied";
  requestIndex: number;
  messagesBefore: number;
  messagesAfter: number;
  durationMs: number;
}
export interface SelectionIgnoredEvent extends InTurn {
  type: "selection.ignored";
  requestIndex: number;
  /** `returned nothing (no-op)`, `threw: …`, `returned an empty list`, … */
  reason: string;
  durationMs: number;
}

export interface CompactionStartedEvent extends Base {
  type: "compaction.started";
  turnId: string | null;
  trigger: CompactionTrigger;
  force: boolean;
  focusTopic: string | null;
  tokensBefore: number;
  messagesBefore: number;
}
export interface CompactionCommittedEvent extends Base {
  type: "compaction.committed";
  turnId: string | null;
  trigger: CompactionTrigger;
  durationMs: number;
  tokensBefore: number;
  tokensAfter: number;
  messagesBefore: number;
  messagesAfter: number;
  /** The compaction's id in the session's ledger (`session.compactions()`). */
  ledgerId?: string;
}
/** `session.undo()` / `session.restore(id)` put a compaction's removed messages back. */
export interface CompactionRestoredEvent extends Base {
  type: "compaction.restored";
  /** The ledger's restore entry id (`r1`, …). */
  ledgerId: string;
  /** The compactions undone (a later one that covered the target's summary included). */
  compactions: string[];
  messagesBack: number;
  tokensBefore: number;
  tokensAfter: number;
}
/** A pin was added or removed (`session.pin` / `session.unpin`). */
export interface PinsChangedEvent extends Base {
  type: "pins.changed";
  change: "pin" | "unpin";
  pinId: string;
  pins: number;
  blockTokens: number;
}
export interface CompactionUnchangedEvent extends Base {
  type: "compaction.unchanged";
  turnId: string | null;
  trigger: CompactionTrigger;
  durationMs: number;
  tokensBefore: number;
}
export interface CompactionTimedOutEvent extends Base {
  type: "compaction.timed_out";
  turnId: string | null;
  trigger: CompactionTrigger;
  durationMs: number;
  timeoutSeconds: number;
  tokensBefore: number;
}
export interface CompactionFailedEvent extends Base {
  type: "compaction.failed";
  turnId: string | null;
  trigger: CompactionTrigger;
  durationMs: number;
  tokensBefore: number;
  error: string;
}
/** A pass that the host had given up on finished later; its result was dropped. */
export interface CompactionDiscardedEvent extends Base {
  type: "compaction.discarded";
  trigger: CompactionTrigger;
  lateByMs: number;
  outcome: "result" | "error";
}
/** A pass was wanted but cannot run: the engine says it is blocked (cooldown, …), or a pass of this session is still running. */
export interface CompactionBlockedEvent extends Base {
  type: "compaction.blocked";
  turnId: string | null;
  reason: string;
  tokens: number;
}
export interface ToolResultsPrunedEvent extends InTurn {
  type: "tool_results.pruned";
  pruned: number;
  tokensBefore: number;
  tokensAfter: number;
}

export interface EngineToolCalledEvent extends InTurn {
  type: "engine_tool.called";
  name: string;
  callId: string;
  args: unknown;
  ok: boolean;
  error: string | null;
  durationMs: number;
  resultChars: number;
}
/**
 * A tool result was larger than the window allows and was shortened (start
 * and end kept, with a note) before it entered the conversation. `original`
 * is the full text, for an app or store that wants to keep it.
 */
export interface ToolResultShortenedEvent extends InTurn {
  type: "tool.result_shortened";
  name: string;
  callId: string;
  originalChars: number;
  originalTokens: number;
  keptChars: number;
  original: string;
}
export interface ToolCalledEvent extends InTurn {
  type: "tool.called";
  name: string;
  callId: string;
  ok: boolean;
  error: string | null;
  durationMs: number;
  resultChars: number;
}

/** A fail-open engine hook failed; the host carried on without it. */
export interface HookFailedEvent extends Base {
  type: "hook.failed";
  turnId: string | null;
  hook: string;
  /** `threw` (a throw or rejection), `timeout` (past its bound), `invalid_result` (refused by validation). */
  reason: HookFailureReason;
  error: string;
}

/** `skipped`: not called, because it timed out earlier in the turn or its breaker is open (see HookBreaker). */
export type HookFailureReason = "threw" | "timeout" | "invalid_result" | "skipped";

/** A hook the host gave up on (timeout) settled after all; its outcome was ignored. */
export interface HookLateEvent extends Base {
  type: "hook.late";
  turnId: string | null;
  hook: string;
  outcome: "resolved" | "rejected";
  lateByMs: number;
}

export interface TurnCompletedEvent extends InTurn {
  type: "turn.completed";
  status: TurnStatus;
  exitReason: string;
  /** The last provider usage of the turn, or null when none arrived. */
  usage: Usage | null;
  /** Usage summed over every response of the turn. */
  totalUsage: Usage;
  apiCalls: number;
  durationMs: number;
  finalMessage: Message | null;
  error: Error | null;
}

export type HostEvent =
  | SessionStartedEvent
  | SessionResetEvent
  | SessionEndedEvent
  | ModelSwitchedEvent
  | TurnStartedEvent
  | ProviderRequestEvent
  | ProviderResponseEvent
  | ProviderDeltaEvent
  | ProviderErrorEvent
  | RequestOverBudgetEvent
  | SelectionAppliedEvent
  | SelectionIgnoredEvent
  | CompactionStartedEvent
  | CompactionCommittedEvent
  | CompactionUnchangedEvent
  | CompactionTimedOutEvent
  | CompactionFailedEvent
  | CompactionDiscardedEvent
  | CompactionBlockedEvent
  | CompactionRestoredEvent
  | PinsChangedEvent
  | ToolResultsPrunedEvent
  | EngineToolCalledEvent
  | ToolCalledEvent
  | ToolResultShortenedEvent
  | HookFailedEvent
  | HookLateEvent
  | TurnCompletedEvent;

export type HostEventType = HostEvent["type"];
export type HostEventOf<T extends HostEventType> = Extract<HostEvent, { type: T }>;
/** An event as emitted, without the fields the bus stamps. */
export type HostEventInput = HostEvent extends infer E ? (E extends HostEvent ? Omit<E, "at"> : never) : never;
export type HostEventListener<T extends HostEventType = HostEventType> = (event: HostEventOf<T>) => void;
