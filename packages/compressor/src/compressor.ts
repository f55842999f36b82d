import type {
  ChatModel,
  CompressDecision,
  CompressOptions,
  EngineInitContext,
  Logger,
  Message,
  PruneOptions,
  PruneResult,
  SessionStartOptions,
  TokenCounter,
  UpdateModelOptions,
  Usage,
} from "@context-engine/core";
import { ContextEngine, createEstimator, createTiktokenCounter, normalizeUsage, silentLogger } from "@context-engine/core";
import { assembleCompaction, withTask } from "./assemble.js";
import { calibrationRatio, maxSummaryTokens, tailTokenBudget } from "./budget.js";
import { capText } from "./cap-text.js";
import type { CompressionConfig } from "./config.js";
import { CompressionConfigSchema, parseCompressionConfig, unknownCompressionKeys } from "./config.js";
import { describeError } from "./failure-policy.js";
import { blockedReason, carryGuards, commitCompaction, recordVerdict, resetRouteGuards } from "./guards.js";
import { wrapSummary } from "./markers.js";
import type { CompactionPlan } from "./protection.js";
import { planCompaction } from "./protection.js";
import type { CallInfo } from "./prune.js";
import { indexToolCalls, pruneToolResultRange } from "./prune.js";
import type { SessionState } from "./session-state.js";
import { DEFAULT_SESSION, SessionStore } from "./session-state.js";
import type { CompressorStatus } from "./status.js";
import { sessionStatus } from "./status.js";
import { writeSummaryBody } from "./summary-body.js";
import { throwIfAborted } from "./summary-call.js";
import { createSnapshotTolerantCounter } from "./token-cache.js";
import { firstRequestText, hasSummaryNear, latestRequestText, onlySummaries, previousSummaryFor, wellFormed } from "./transcript.js";
import type { UnitIndex } from "./units.js";
import { indexUnits, rangeTokens } from "./units.js";
import { WINDOW_SHARE, relieveWithoutSummary } from "./window-fit.js";
import { keptTextOf, sizeSummary } from "./sizing.js";

export type { CompressorStatus } from "./status.js";

/**
 * The built-in engine. When the conversation crosses the threshold it keeps
 * the system prompt, the opening messages (until the first compaction) and a
 * token-budgeted recent tail verbatim, and replaces the middle with one
 * structured summary written by the chat model, or extracted
 * deterministically when no model is configured. Later compactions update
 * the previous summary. See README.md for the guarantees.
 */
export class ContextCompressor extends ContextEngine {
  readonly config: CompressionConfig;
  readonly #chatModel: ChatModel | undefined;
  readonly #logger: Logger;
  #counter: TokenCounter = createSnapshotTolerantCounter(createEstimator());
  /** Pending load of an exact counter (`token_counter`); compress waits for it, cheap checks do not. */
  #counterReady: Promise<void> | null = null;
  readonly #sessions = new SessionStore();
  /** States of sessions that just ended, so a compaction boundary can carry their guards over. */
  readonly #ended = new Map<string, SessionState>();
  /** The session `shouldCompress` and `updateFromResponse` (which carry no id) refer to. */
  #activeSession: string = DEFAULT_SESSION;
  #model = "";
  #route = "";
  /** The model the engine started with; after a switch (`/model`) summaries follow the new one. */
  #startModel: string | null = null;

  /** The `compression` block this engine reads (snake_case keys), for hosts and `config check`. */
  static readonly configSchema = CompressionConfigSchema;

  constructor(ctx: EngineInitContext = {}) {
    super();
    this.#logger = ctx.logger ?? silentLogger;
    this.config = parseCompressionConfig(ctx.config, "compression config");
    const unknown = unknownCompressionKeys(ctx.config);
    if (unknown.length) {
      this.#logger.warn(`compression config: ignoring unknown key(s) ${unknown.join(", ")}`, { keys: unknown });
    }
    this.thresholdPercent = this.config.threshold;
    this.protectFirstN = this.config.protect_first_n;
    this.protectLastN = this.config.protect_last_n;
    this.summaryTargetRatio = this.config.summary_target_ratio;
    this.modelThresholds = { ...this.config.model_thresholds };
    this.#chatModel = ctx.chatModel;
    const encoding = this.config.token_counter;
    if (encoding !== "estimate") {
      this.#counterReady = createTiktokenCounter(encoding).then(
        (counter) => {
          this.#counter = createSnapshotTolerantCounter(counter);
        },
        (error: unknown) => {
          this.#logger.warn(`token counter ${encoding} could not be loaded; using the estimator`, { error: describeError(error) });
        },
      );
    }
    this.#model = ctx.model ?? "";
    if (ctx.model) this.#startModel = ctx.model;
    if (typeof ctx.contextLength === "number" && ctx.contextLength > 0) {
      this.updateModel(ctx.model ?? "", ctx.contextLength);
    }
  }

  get name(): string {
    return "compressor";
  }

  /** Host-side timeout for one compaction pass in seconds (0 = none), from `compression.context_timeout_seconds`. */
  get contextTimeoutSeconds(): number {
    return this.config.context_timeout_seconds;
  }

  /** The token counter used for every estimate (cached per message object). */
  get tokenCounter(): TokenCounter {
    return this.#counter;
  }

  // ---------------------------------------------------------------- usage and triggers

  updateFromResponse(usage: Usage): void {
    this.recordUsage(normalizeUsage(usage));
    const state = this.#sessions.peek(this.#activeSession);
    if (!state) return;
    recordVerdict(state, this.lastPromptTokens, this.thresholdTokens, this.#logger);
  }

  shouldCompress(promptTokens?: number): boolean {
    return this.shouldCompressInfo(promptTokens).compress;
  }

  override shouldCompressInfo(promptTokens?: number): CompressDecision {
    const tokens = typeof promptTokens === "number" && Number.isFinite(promptTokens) ? promptTokens : this.lastPromptTokens;
    if (this.thresholdTokens <= 0 || tokens < this.thresholdTokens) return { compress: false, reason: null };
    if (!this.config.enabled) return { compress: false, reason: "disabled" };
    if (this.#nearWindow(tokens)) return { compress: true, reason: null };
    const blocked = blockedReason(this.#sessions.peek(this.#activeSession));
    return blocked ? { compress: false, reason: blocked } : { compress: true, reason: null };
  }

  /**
   * Near the window the guards yield: any compaction (a deterministic one
   * while the summariser cools down) beats a provider overflow error.
   */
  #nearWindow(tokens: number): boolean {
    return this.contextLength > 0 && tokens >= Math.floor(this.contextLength * 0.9);
  }

  override shouldCompressPreflight(messages: readonly Message[]): boolean {
    if (this.thresholdTokens <= 0 || !this.config.enabled || !Array.isArray(messages)) return false;
    if (!wellFormed(messages)) return false;
    const tokens = this.#counter.countMessages(messages);
    if (tokens < this.thresholdTokens) return false;
    return this.#nearWindow(tokens) || blockedReason(this.#sessions.peek(this.#activeSession)) === null;
  }

  override updateModel(model: string, contextLength: number, options: UpdateModelOptions = {}): void {
    const route = `${options.provider ?? ""}|${options.baseUrl ?? ""}|${options.apiMode ?? ""}`;
    const routeChanged = model !== this.#model || route !== this.#route;
    const length = Number.isFinite(contextLength) && contextLength > 0 ? Math.floor(contextLength) : 0;
    super.updateModel(model, length, options);
    if (this.config.threshold_tokens) this.thresholdTokens = Math.min(this.thresholdTokens, this.config.threshold_tokens);
    if (length > 0) this.thresholdTokens = Math.min(this.thresholdTokens, length - 1);
    this.#model = model;
    this.#route = route;
    this.#startModel ??= model;
    // Usage of the old model says nothing about the new one.
    this.lastPromptTokens = 0;
    this.lastCompletionTokens = 0;
    this.lastTotalTokens = 0;
    for (const state of this.#sessions.all()) {
      state.strikes = 0;
      state.verifyArmed = false;
      // Cooldowns belong to the route that failed: a new route earns an immediate attempt.
      if (routeChanged) resetRouteGuards(state);
    }
  }

  // ---------------------------------------------------------------- compaction

  override hasContentToCompress(messages: readonly Message[]): boolean {
    if (!Array.isArray(messages) || messages.length < 2 || !wellFormed(messages)) return false;
    const state = this.#sessions.peek(this.#activeSession);
    const index = indexUnits(messages, this.#counter);
    return this.#plan(messages, index, state, Infinity) !== null;
  }

  async compress(messages: Message[], options: CompressOptions = {}): Promise<Message[]> {
    const started = performance.now();
    const { signal } = options;
    throwIfAborted(signal);
    if (!Array.isArray(messages) || messages.length < 2) return messages;
    if (this.#counterReady) {
      await this.#counterReady;
      throwIfAborted(signal);
    }
    if (!wellFormed(messages)) {
      this.#logger.warn("compress: the message list contains entries without a known role; left unchanged");
      return messages;
    }
    const sessionId = options.sessionId || this.#activeSession;
    this.#activeSession = sessionId;
    const state = this.#sessions.get(sessionId);
    const startSeq = state.commitSeq;
    const counter = this.#counter;
    const index = indexUnits(messages, counter);
    const before = rangeTokens(index, 0, messages.length);
    const scale = calibrationRatio(options.currentTokens, before);
    const threshold = this.thresholdTokens;
    // The result, in our estimate, must stay strictly under the threshold and the host's input budget.
    const hostBudget = this.#hostBudget(options.budgetTokens);
    const ceiling = Math.min(threshold > 0 ? threshold : Infinity, hostBudget || Infinity);
    const limit = Number.isFinite(ceiling) ? Math.floor((ceiling - 1) / scale) : Infinity;
    // What must fit whatever it costs: the host's input budget, else the window less room for tool schemas and estimate error.
    const windowLimit = hostBudget ? Math.floor(hostBudget / scale) : this.contextLength > 0 ? Math.floor((this.contextLength * WINDOW_SHARE) / scale) : Infinity;
    const calls = indexToolCalls(messages);

    const nothingToSummarise = () => relieveWithoutSummary(messages, before, limit, windowLimit, counter, calls);
    const plan = this.#plan(messages, index, state, limit);
    if (!plan) return nothingToSummarise();

    const middle = messages.slice(plan.headEnd, plan.tailStart);
    if (state.task === undefined) state.task = firstRequestText(messages);
    const sizing = sizeSummary({
      messages,
      index,
      plan,
      task: state.task,
      counter,
      limit,
      ratio: this.summaryTargetRatio,
      contextLength: this.contextLength,
      thresholdTokens: threshold,
      calls,
    });
    const { pinnedSource, restatedTask, budget, summaryCap, wrapperTokens } = sizing;
    const previous = previousSummaryFor(messages, state);
    // A middle holding only the previous summary (and the request restated
    // anyway) has nothing new: rewriting a summary that already fits its
    // budget would cost a model call and come out no smaller (a refused
    // compaction, every turn).
    const fresh = plan.pinned >= 0 ? middle.filter((_, i) => i !== plan.pinned - plan.headEnd) : middle;
    if (onlySummaries(fresh) && (previous === null || counter.countText(previous) <= summaryCap)) return nothingToSummarise();
    const latestRequest = latestRequestText(messages, plan.tailStart);

    // ---- the summary
    const written = await writeSummaryBody({
      chatModel: this.#chatModel,
      config: this.config,
      state,
      logger: this.#logger,
      middle,
      previous,
      latestRequest,
      firstRequest: firstRequestText(messages),
      keptText: keptTextOf(sizing.kept, restatedTask),
      budget,
      calls,
      focusTopic: options.focusTopic,
      memoryContext: options.memoryContext,
      signal,
      force: options.force,
      mainModel: this.#model,
      contextLength: this.contextLength,
      followModel: this.#followModel(),
      countTokens: (text) => counter.countText(text),
    });
    if ("abort" in written) return messages;
    const { mode, rejected } = written;
    throwIfAborted(signal);

    // ---- assembly
    const assembled = assembleCompaction({
      messages,
      plan,
      pinnedSource,
      restatedTask,
      body: capText(written.body, counter, summaryCap, "summary shortened to its budget"),
      counter,
      limit,
      windowLimit,
      contextLength: this.contextLength,
      wrapperTokens,
      calls,
      logger: this.#logger,
    });
    const { result, after, body } = assembled;
    if (after >= before) {
      // Summarising made nothing smaller: refuse, and count it against the breaker.
      if (!options.force) state.strikes++;
      this.#logger.warn("compaction would not shrink the conversation; left unchanged", { beforeTokens: before, afterTokens: after });
      return messages;
    }
    throwIfAborted(signal);

    // ---- commit (only the newest attempt publishes)
    if (state.commitSeq === startSeq) {
      const record = { at: Date.now(), beforeTokens: before, afterTokens: after, summarisedMessages: middle.length, mode, durationMs: performance.now() - started };
      commitCompaction(state, withTask(restatedTask, body), rejected ? { ...record, rejected } : record);
      this.compressionCount++;
      this.lastCompressionRoughTokens = after;
      this.#logger.info("compacted conversation", { sessionId, ...state.lastCompaction });
    }
    return result;
  }

  /**
   * The input budget the host says it enforces (`budgetTokens`), or 0: absent, or an older host's whole
   * window (not below `contextLength`), which says nothing the window does not.
   */
  #hostBudget(budgetTokens: number | undefined): number {
    if (!(typeof budgetTokens === "number" && budgetTokens > 0)) return 0;
    return this.contextLength > 0 && budgetTokens >= this.contextLength ? 0 : Math.floor(budgetTokens);
  }

  /** The model to ask for summaries: none (the chat model's default) until `/model` switched away from the start. */
  #followModel(): string | undefined {
    if (this.config.summary_model) return undefined;
    return this.#model && this.#startModel !== null && this.#model !== this.#startModel ? this.#model : undefined;
  }

  #plan(messages: readonly Message[], index: UnitIndex, state: SessionState | undefined, limit: number): CompactionPlan | null {
    const decayed = (state?.compactions ?? 0) > 0 || hasSummaryNear(messages, this.protectFirstN + 6);
    const wrapper = this.#counter.countText(wrapSummary("")) + 8;
    const keepCap = limit === Infinity ? Infinity : limit - maxSummaryTokens(this.contextLength, this.thresholdTokens) - wrapper;
    return planCompaction({
      messages,
      index,
      protectFirstN: decayed ? 0 : this.protectFirstN,
      protectLastN: this.protectLastN,
      tailBudget: tailTokenBudget(this.contextLength, this.thresholdTokens, this.config.tail_token_budget),
      keepCap: Math.max(0, keepCap),
    });
  }


  // ---------------------------------------------------------------- deterministic pruning

  override pruneToolResultsOnly(messages: Message[], options: PruneOptions = {}): PruneResult {
    const noop = { messages, pruned: 0 };
    if (!Array.isArray(messages) || messages.length < 3 || !wellFormed(messages)) return noop;
    if (options.sessionId) this.#activeSession = options.sessionId;
    const threshold = this.thresholdTokens;
    const current = options.currentTokens;
    if (typeof current === "number" && threshold > 0 && current < threshold * this.config.prune_trigger_percent) return noop;
    const index = indexUnits(messages, this.#counter);
    const plan = this.#plan(messages, index, this.#sessions.peek(options.sessionId || this.#activeSession), Infinity);
    if (!plan) return noop;
    const calls: Map<string, CallInfo> = indexToolCalls(messages);
    const result = pruneToolResultRange(messages, {
      from: plan.headEnd,
      to: plan.tailStart,
      minChars: this.config.prune_min_result_chars,
      trim: { keepHead: 400, keepTail: 300 },
      calls,
    });
    if (result.pruned === 0) return noop;
    const reclaimed = rangeTokens(index, 0, messages.length) - this.#counter.countMessages(result.messages);
    if (reclaimed < this.config.prune_min_reclaim_tokens) return noop;
    return result;
  }

  // ---------------------------------------------------------------- lifecycle and status

  override onSessionStart(sessionId: string, options: SessionStartOptions = {}): void {
    const id = sessionId || DEFAULT_SESSION;
    this.#activeSession = id;
    const state = this.#sessions.get(id);
    const oldId = typeof options.oldSessionId === "string" ? options.oldSessionId : undefined;
    if (options.boundaryReason === "compression" && oldId) {
      // A compaction boundary: the guards of the old session still apply.
      const old = this.#ended.get(oldId) ?? (oldId !== id ? this.#sessions.peek(oldId) : undefined);
      if (old) carryGuards(old, state);
    }
    this.#ended.delete(oldId ?? "");
  }

  override onSessionEnd(sessionId: string, _messages: readonly Message[]): void {
    const id = sessionId || DEFAULT_SESSION;
    const state = this.#sessions.peek(id);
    this.#sessions.delete(id);
    if (state) {
      this.#ended.set(id, state);
      if (this.#ended.size > 16) this.#ended.delete(this.#ended.keys().next().value!);
    }
  }

  override onSessionReset(): void {
    super.onSessionReset();
    this.#sessions.delete(this.#activeSession);
    this.#ended.delete(this.#activeSession);
  }

  override getStatus(): CompressorStatus {
    const summaryModel = this.#chatModel ? (this.config.summary_model ?? this.#chatModel.model ?? null) : false;
    return sessionStatus(super.getStatus(), this.#activeSession, this.#sessions.peek(this.#activeSession), summaryModel);
  }
}
