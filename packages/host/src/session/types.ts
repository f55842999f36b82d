import type { AssistantMessage, ChatModelError, EngineStatus, Message, Usage } from "@context-engine/core";
import type { CompactionOutcome, CompactionRequest } from "../compaction/runner.js";
import type { TurnStatus } from "../events.js";
import type { HostError } from "../errors.js";
import type { HostRuntime } from "../runtime.js";
import type { FunctionTool } from "../tools.js";

export interface TurnResult {
  sessionId: string;
  turnId: string;
  status: TurnStatus;
  /**
   * `completed`, `length` (the answer was cut at max tokens), `content_filter`,
   * `interrupted`, `iteration_limit`, `context_budget_exceeded`,
   * `provider_error:<kind>` (auth, quota, context_length, …).
   */
  exitReason: string;
  /** The final assistant message, or null when none arrived. */
  message: AssistantMessage | null;
  /** Its text content ("" when none). */
  text: string;
  /** The last provider usage of the turn, or null. */
  usage: Usage | null;
  /** Usage summed over the turn's responses. */
  totalUsage: Usage;
  apiCalls: number;
  compactions: number;
  /** Messages this turn appended (user, assistant, tool), as persisted. */
  newMessages: Message[];
  error: ChatModelError | HostError | null;
  durationMs: number;
}

export interface SendOptions {
  signal?: AbortSignal;
}

export type ManualCompactionResult = CompactionOutcome | { status: "nothing_to_compress" } | { status: "busy" };

export interface SessionStatus {
  sessionId: string;
  engine: string;
  model: string;
  contextLength: number;
  messageCount: number;
  /** Host estimate of the conversation plus tool definitions. */
  estimatedTokens: number;
  /** The session's last real prompt size; 0 before any usage, -1 right after a compaction. */
  lastPromptTokens: number;
  turns: number;
  compactions: number;
  engineTools: string[];
  /** `engine.getStatus()`, or null when it threw. */
  engineStatus: EngineStatus | null;
}

/** The session internals a turn works on. */
export interface TurnSession {
  readonly id: string;
  readonly model: string;
  readonly contextLength: number;
  readonly runtime: HostRuntime;
  /** The live conversation; replaced as a whole when a compaction commits. */
  readonly messages: Message[];
  lastPromptTokens: number;
  readonly tools: FunctionTool[];
  readonly engineToolNames: ReadonlySet<string>;
  readonly toolsTokens: number;
  /** The output kept free for the answer (sent as `max_tokens`; 0: none), after the cap. */
  readonly outputReserveTokens: number;
  /** What a request's estimate may reach: the window less the output reserve (0: unknown window). */
  readonly requestLimit: number;
  /** What the messages may take: `requestLimit` less the tool schemas; engines get it as `budgetTokens`. */
  readonly inputBudget: number;
  readonly promptCache: boolean;
  /**
   * True after a restore (`undo`/`restore`) until the next compaction commits: the threshold does not
   * trigger compaction then, so what the user put back stays; a request over the window is still fitted.
   */
  readonly holdThreshold?: boolean;
  /** Run one compaction pass and publish it if it commits. */
  compact(request: CompactionRequest, signal?: AbortSignal): Promise<CompactionOutcome | { status: "busy" }>;
  /** Replace the live conversation (pruning); the caller validated it. */
  replaceMessages(messages: Message[]): void;
}
