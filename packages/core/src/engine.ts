import type { Message } from "./messages.js";
import type { Usage } from "./usage.js";
import { markDefaultHook } from "./hooks.js";
import { resolveModelThreshold } from "./threshold.js";
import { toolError } from "./tool-schema.js";
import type { ToolSchema } from "./tool-schema.js";

/** Maybe a promise: methods that may do I/O may return one. */
export type Awaitable<T> = T | Promise<T>;

export interface CompressOptions {
  /** The host's best figure for the conversation's current prompt size. */
  currentTokens?: number;
  /** From a manual `/compress <focus>`: preserve what relates to it first. */
  focusTopic?: string;
  /** Manual compaction: bypass the engine's own cooldowns and guards. */
  force?: boolean;
  /** Aborted when the host gives up on this pass (timeout, shutdown). */
  signal?: AbortSignal;
  /** Text from a memory provider to take into account; may be empty. */
  memoryContext?: string;
  /** The session this pass belongs to, for engines shared across sessions. */
  sessionId?: string;
  /**
   * Deep copy of the message that starts the turn this pass is for, when the host sends it after the
   * compacted list itself (it is then not in `messages`, whose newest user message is an earlier
   * turn's). An engine that keeps or quotes the turn's request takes this one. Absent: the request is
   * the newest user message of `messages`.
   */
  incomingMessage?: Message | null;
  /**
   * The input budget the host will enforce on the next request, in the host's token count: what the
   * messages may take once the output reserve, every tool schema sent with the request and anything
   * else the host adds are subtracted from the window. The compacted list should fit well under it.
   * Absent or 0: unknown (an older host); fall back to the engine's own figure from `contextLength`.
   */
  budgetTokens?: number;
  /**
   * When each message of the list was said (epoch milliseconds), in the list's order; null where the
   * host does not know (a message an engine produced). A host replaying or resuming a recording passes
   * the recorded times; an engine that keeps messages stores these instead of its own clock.
   */
  messageTimes?: readonly (number | null)[];
}

export interface SessionStartOptions {
  /** Where the engine may keep files for this host. */
  dataDir?: string;
  platform?: string;
  model?: string;
  contextLength?: number;
  conversationId?: string;
  /** Set on a mid-session boundary, e.g. `"compression"`. */
  boundaryReason?: string;
  oldSessionId?: string;
  [key: string]: unknown;
}

export interface UpdateModelOptions {
  baseUrl?: string;
  apiKey?: string;
  provider?: string;
  apiMode?: string;
}

export interface SelectContextOptions {
  /** Deep copy of the persisted conversation; the engine may not change the original. */
  conversationMessages?: Message[];
  /** Deep copy of the message that started this turn. */
  incomingMessage?: Message | null;
  /**
   * The input budget the host will enforce on this request, in the host's token count: the window
   * minus the output reserve, minus every tool schema sent with the request (the engine's own and the
   * agent's) and anything else the host adds. The returned messages must fit it; the host falls back
   * to the unselected request when they do not. 0 when unknown. Hosts written before this was
   * specified passed the whole window here: a value not below `contextLength` is such a window.
   */
  budgetTokens?: number;
  sessionId?: string;
  /**
   * When each message of `requestMessages` was said (epoch milliseconds), in the list's order; null where the
   * host does not know (a message an engine produced). A host replaying or resuming a recording passes
   * the recorded times; an engine that keeps messages stores these instead of its own clock.
   */
  messageTimes?: readonly (number | null)[];
}

/**
 * What the host knows of the finished turn. Turn identity (all optional, backward compatible):
 * an engine may rely on it as documented here, and must still work from `messages` alone.
 */
export interface TurnCompleteMeta {
  /**
   * A key unique to this turn within the session, stable across re-delivery: the host sends the same
   * key again when it retries a turn it already handed over (after a crash, a restart). An engine may
   * treat a second delivery of a key it has stored as a no-op, also in another process.
   */
  turnId?: string;
  sessionId?: string;
  /**
   * The messages this turn added to the host's transcript, in order (the incoming user message, the
   * assistant replies, the tool results), also included at the end of `messages`. When present, an
   * engine may store exactly these instead of working out what is new by comparing `messages` with
   * what it stored: that comparison cannot tell a host's own rewrite (its compaction, renamed tool-call
   * ids) or another writer's list from new messages.
   */
  turnMessages?: readonly Message[];
  /**
   * The host's own id of each message in `turnMessages` (same order; null where a message has none):
   * AI SDK UI message ids, LangChain message ids. A message whose id an engine has stored is already kept.
   */
  messageIds?: readonly (string | null)[];
  /**
   * When each message of `messages` (the whole transcript, not only `turnMessages`) was said (epoch milliseconds), in the list's order; null where the
   * host does not know (a message an engine produced). A host replaying or resuming a recording passes
   * the recorded times; an engine that keeps messages stores these instead of its own clock.
   */
  messageTimes?: readonly (number | null)[];
  interrupted?: boolean;
  failed?: boolean;
  exitReason?: string;
  apiCallCount?: number;
  [key: string]: unknown;
}

export interface ToolCallOptions {
  /** The live in-memory conversation. Treat as read-only. */
  messages?: readonly Message[];
  sessionId?: string;
  signal?: AbortSignal;
}

export interface PruneOptions {
  currentTokens?: number;
  sessionId?: string;
  /** When each message of the list was said (epoch ms; null where unknown), as in `CompressOptions`. */
  messageTimes?: readonly (number | null)[];
}

export interface PruneResult {
  messages: Message[];
  /** How many tool results were trimmed; 0 means nothing changed. */
  pruned: number;
}

export interface CompressDecision {
  compress: boolean;
  /** Why compaction is blocked although over threshold (`cooldown:<s>`, `ineffective`, …), else null. */
  reason: string | null;
}

export interface EngineStatus {
  name: string;
  lastPromptTokens: number;
  thresholdTokens: number;
  contextLength: number;
  usagePercent: number;
  compressionCount: number;
  [key: string]: unknown;
}

/**
 * The context-engine contract. Exactly one engine is active per agent; it
 * decides when and how the conversation is compacted, tracks token usage and
 * may expose tools.
 *
 * Lifecycle: `onSessionStart` → per response `updateFromResponse` → per turn
 * `shouldCompress` → `compress` when it says so → `onSessionEnd` at real
 * session boundaries only.
 */
export abstract class ContextEngine {
  /** Short identifier; must equal the `context.engine` value that selects it. */
  abstract get name(): string;

  /** Called after every LLM call with its usage. Keep the `last*Tokens` fields current. */
  abstract updateFromResponse(usage: Usage): void;

  /** Whether compaction should fire now. Without an argument, use `lastPromptTokens`. */
  abstract shouldCompress(promptTokens?: number): boolean;

  /**
   * Compact the conversation and return a valid OpenAI-format list. Return
   * the very input object when there is nothing to do.
   */
  abstract compress(messages: Message[], options?: CompressOptions): Awaitable<Message[]>;

  // Fields the host reads directly. The host writes -1 into lastPromptTokens
  // after a committed compaction ("wait for real usage"); 0 means "no usage yet".
  lastPromptTokens = 0;
  lastCompletionTokens = 0;
  lastTotalTokens = 0;
  thresholdTokens = 0;
  contextLength = 0;
  compressionCount = 0;

  thresholdPercent = 0.75;
  /** Non-system head messages kept verbatim besides the system prompt. */
  protectFirstN = 3;
  protectLastN = 6;
  summaryTargetRatio = 0.2;
  /** Per-model threshold overrides; assigned by the host before the first `updateModel`. */
  modelThresholds: Record<string, number> = {};
  /** When false, successful automatic compactions run silently. */
  emitAutomaticCompactionStatus = true;
  /** Written by the host after a committed compaction. */
  awaitingRealUsageAfterCompression = false;
  lastRealPromptTokens = 0;
  lastCompressionRoughTokens = 0;

  /** The configured percent, snapshotted by the first `updateModel`. */
  #configThresholdPercent: number | undefined;

  /** Conversation begins. Load persisted state here. */
  onSessionStart(_sessionId: string, _options?: SessionStartOptions): Awaitable<void> {}

  /** A real session boundary (exit, reset, expiry). Flush state here. */
  onSessionEnd(_sessionId: string, _messages: readonly Message[]): Awaitable<void> {}

  /** `/new` or `/reset`: clear per-session counters (to 0, never -1). */
  onSessionReset(): Awaitable<void> {
    this.lastPromptTokens = 0;
    this.lastCompletionTokens = 0;
    this.lastTotalTokens = 0;
    this.compressionCount = 0;
    this.awaitingRealUsageAfterCompression = false;
  }

  /**
   * The model (or its window) changed. Sets `contextLength`, resolves the
   * threshold percent through `modelThresholds` against the percent configured
   * at the first call, and recomputes `thresholdTokens`.
   */
  updateModel(model: string, contextLength: number, options: UpdateModelOptions = {}): Awaitable<void> {
    this.contextLength = contextLength;
    if (this.#configThresholdPercent === undefined) this.#configThresholdPercent = this.thresholdPercent;
    this.thresholdPercent = resolveModelThreshold(
      model,
      this.modelThresholds ?? {},
      this.#configThresholdPercent,
      options.provider,
    );
    this.thresholdTokens = Math.floor(contextLength * this.thresholdPercent);
  }

  /** The percent the engine was configured with, before any per-model override. */
  get configuredThresholdPercent(): number {
    return this.#configThresholdPercent ?? this.thresholdPercent;
  }

  /** Agent-callable tools, as bare function schemas `{ name, description, parameters }`. */
  getToolSchemas(): ToolSchema[] {
    return [];
  }

  /** Handle a call to one of this engine's tools. Must always return a JSON string. */
  handleToolCall(name: string, _args: unknown, _options?: ToolCallOptions): Awaitable<string> {
    return toolError(`Unknown context engine tool: ${name}`);
  }

  /** A cheap estimate before the request is sent. Overriding it enables a turn-start maintenance pass. */
  shouldCompressPreflight(_messages: readonly Message[]): Awaitable<boolean> {
    return false;
  }

  /** `shouldCompress` with a reason when compaction is blocked while over threshold. */
  shouldCompressInfo(promptTokens?: number): CompressDecision {
    return { compress: this.shouldCompress(promptTokens), reason: null };
  }

  /** Deterministic trimming of old tool output with no LLM call. Default: nothing, same object. */
  pruneToolResultsOnly(messages: Message[], _options?: PruneOptions): Awaitable<PruneResult> {
    return { messages, pruned: 0 };
  }

  /** Whether a manual `/compress` has anything to work on. */
  hasContentToCompress(_messages: readonly Message[]): boolean {
    return true;
  }

  /** Standard figures for display; the -1 sentinel reads as 0. */
  getStatus(): EngineStatus {
    const lpt = Math.max(this.lastPromptTokens, 0);
    const usagePercent = this.contextLength > 0 ? Math.min(100, (lpt * 100) / this.contextLength) : 0;
    return {
      name: this.name,
      lastPromptTokens: lpt,
      thresholdTokens: this.thresholdTokens,
      contextLength: this.contextLength,
      usagePercent,
      compressionCount: this.compressionCount,
    };
  }

  /**
   * Replace the messages of this one provider request (retrieval, routing), or
   * return null to leave it unchanged. Never persisted; re-run on retries.
   */
  selectContext(_requestMessages: Message[], _options?: SelectContextOptions): Awaitable<Message[] | null | undefined> {
    return null;
  }

  /** Observe a finished turn (read-only). The return value is ignored. */
  onTurnComplete(_messages: readonly Message[], _usage?: Usage | null, _meta?: TurnCompleteMeta): Awaitable<void> {}

  /** Copy the classic usage figures; for `updateFromResponse` implementations. */
  protected recordUsage(usage: Partial<Usage> | null | undefined): void {
    const u = usage ?? {};
    const prompt = finiteOr(u.prompt_tokens, 0);
    const completion = finiteOr(u.completion_tokens, 0);
    this.lastPromptTokens = prompt;
    this.lastCompletionTokens = completion;
    this.lastTotalTokens = finiteOr(u.total_tokens, prompt + completion);
    if (prompt > 0) {
      this.lastRealPromptTokens = prompt;
      this.awaitingRealUsageAfterCompression = false;
    }
  }
}

function finiteOr(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}

// Tag the optional per-request hooks so hosts can skip inherited no-ops.
markDefaultHook(ContextEngine.prototype.selectContext);
markDefaultHook(ContextEngine.prototype.onTurnComplete);

/** Structural check: does a value look like a context engine (also from another copy of this package)? */
export function isContextEngine(value: unknown): value is ContextEngine {
  if (value instanceof ContextEngine) return true;
  if (!value || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.name === "string" &&
    typeof v.updateFromResponse === "function" &&
    typeof v.shouldCompress === "function" &&
    typeof v.compress === "function"
  );
}
