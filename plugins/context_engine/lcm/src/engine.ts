import { homedir } from "node:os";
import { join } from "node:path";
import { ContextEngine, defaultTokenCounter, describeError, estimateTextTokens, raceAbortOrNull, silentLogger, toolError } from "@context-engine/core";
import type {
  CompressOptions,
  EngineInitContext,
  EngineStatus,
  Logger,
  Message,
  PruneOptions,
  PruneResult,
  SelectContextOptions,
  SessionStartOptions,
  ToolCallOptions,
  ToolSchema,
  TurnCompleteMeta,
  UpdateModelOptions,
  Usage,
} from "@context-engine/core";
import { assembleContext, RowCache } from "./assembly/assembler.js";
import type { AssembleResult } from "./assembly/assembler.js";
import { isEngineMessage, shortenMessage, SUMMARY_OVERHEAD_TOKENS } from "./assembly/render.js";
import { isRequest, keepRequest, latestRequest } from "./assembly/keep-request.js";
import { configSchema, parseConfig } from "./config.js";
import type { LcmConfig } from "./config.js";
import type { PlanOptions } from "./compaction/planner.js";
import type { MessageShape } from "./compaction/units.js";
import { prepareSteps, publishPrepared, replaySteps, virtualFrontier } from "./compaction/runner.js";
import type { PreparedWork, RunDeps } from "./compaction/runner.js";
import { Summarizer } from "./compaction/summarizer.js";
import { toRedactionConfig } from "./redact/index.js";
import { applyRetention, deleteSession } from "./retention/index.js";
import type { DeleteReport, RetentionReport } from "./retention/index.js";
import { acquireStore } from "./store/pool.js";
import type { StoreLease } from "./store/pool.js";
import type { IngestResult, LcmStore } from "./store/types.js";
import { handleLcmToolCall, isLcmTool, lcmToolSchemas } from "./tools/index.js";

const DEFAULT_SESSION = "default";
const DEFAULT_WINDOW = 128_000;

/** Per-session state. The store holds everything durable; this is only in-flight work and caches. */
interface SessionState {
  sessionId: string;
  conversationId: number;
  /** Serialises compress / publish / ingest for this session (other sessions run in parallel). */
  queue: Promise<unknown>;
  /** Summaries prepared off the turn path, waiting for the next compress. */
  prepared: PreparedWork | null;
  preparing: Promise<PreparedWork | null> | null;
  abort: AbortController;
  lastAssembly: { key: string; result: AssembleResult } | null;
  lastCompaction: Record<string, unknown> | null;
  /** The last request selectContext replaced: its selection and the host list it stood for. */
  rescue: { selection: Message[]; hostLength: number; hostLast: string } | null;
}

/**
 * Lossless Context Management: every message is kept in SQLite, older ones
 * are summarised into a DAG whose nodes point back to their sources, and the
 * agent gets tools to search and expand that history.
 */
export class LcmEngine extends ContextEngine {
  get name(): string {
    return "lcm";
  }

  /** The `engines.lcm` section this engine reads (snake_case keys), for hosts and `config check`. */
  static readonly configSchema = configSchema;

  readonly config: LcmConfig;
  readonly #ctx: EngineInitContext;
  readonly #logger: Logger;
  readonly #summarizer: Summarizer;
  readonly #cache = new RowCache();
  readonly #sessions = new Map<string, SessionState>();
  readonly #shapes = new Map<number, MessageShape>();
  #lease: StoreLease | null = null;
  #currentSession = DEFAULT_SESSION;
  /** The session of the latest call, for getStatus when the host never called onSessionStart. */
  #lastActive = DEFAULT_SESSION;
  /** Host session ids that continue another session's conversation (renamed at a compaction boundary). */
  readonly #aliases = new Map<string, string>();
  /** A session reset whose active context is cleared if the host keeps using the same id. */
  #resetPending: string | null = null;
  #closed = false;
  /** The model the engine started with; after `/model` summaries follow the new one (unless `summary_model` is set). */
  #startModel: string | null;
  #metrics = { ingested: 0, published: 0, stalePrepared: 0, prepareRuns: 0, compressCalls: 0, selections: 0, assemblies: 0 };

  constructor(ctx: EngineInitContext = {}) {
    super();
    this.#ctx = ctx;
    this.#startModel = ctx.model || null;
    this.#logger = ctx.logger ?? silentLogger;
    this.config = parseConfig(ctx.config);
    this.thresholdPercent = this.config.context_threshold;
    if (ctx.contextLength && ctx.contextLength > 0) {
      this.contextLength = ctx.contextLength;
      this.thresholdTokens = Math.floor(ctx.contextLength * this.thresholdPercent);
    }
    this.protectLastN = this.config.fresh_tail_count;
    this.#summarizer = new Summarizer({
      ...(ctx.chatModel ? { chatModel: ctx.chatModel } : {}),
      ...(this.config.summary_model ? { model: this.config.summary_model } : {}),
      temperature: this.config.summary_temperature,
      timeoutMs: this.config.summary_timeout_ms,
      fallbackMaxTokens: this.config.fallback_max_tokens,
      customInstructions: this.config.custom_instructions,
      maxUnsupportedRatio: this.config.max_unsupported_ratio,
      breakerFailures: this.config.circuit_breaker_failures,
      breakerCooldownMs: this.config.circuit_breaker_cooldown_ms,
      logger: this.#logger,
    });
  }

  // ---------------------------------------------------------------- store

  /** The SQLite store, opened on first use (constructing an engine writes nothing); shared with other instances on the same file. */
  get store(): LcmStore {
    if (this.#closed) throw new Error("LCM engine is closed");
    if (!this.#lease) {
      const dataDir = this.#ctx.dataDir ?? join(homedir(), ".context-engine", "data", "lcm");
      const lease = acquireStore({
        ...(this.config.database_path ? { path: this.config.database_path } : { dataDir }),
        redaction: toRedactionConfig(this.config.redaction),
      });
      // Retention run by any instance on this file spares the sessions live here.
      lease.protect(() => [...this.#sessions.keys(), this.#canonical(this.#currentSession), ...this.#aliases.values()]);
      this.#lease = lease;
    }
    return this.#lease.store;
  }

  /** Stop background work and give the database back (closed with its last user). The engine cannot be used afterwards. */
  close(): void {
    for (const s of this.#sessions.values()) s.abort.abort();
    this.#sessions.clear();
    this.#lease?.release();
    this.#lease = null;
    this.#closed = true;
  }

  /**
   * Apply `engines.lcm.retention` now (also done when a session starts or ends). Live sessions are protected. Null when no policy is configured.
   */
  async applyRetention(): Promise<RetentionReport | null> {
    const policy = this.config.retention;
    if (!policy || !this.#lease) return null;
    try {
      const report = await applyRetention(this.#lease.store, {
        ...(policy.max_age_days !== undefined ? { maxAgeDays: policy.max_age_days } : {}),
        ...(policy.max_bytes !== undefined ? { maxBytes: policy.max_bytes } : {}),
        ...(policy.max_conversations !== undefined ? { maxConversations: policy.max_conversations } : {}),
        protect: this.#lease.protectedSessions(),
      });
      if (report.deleted.length) {
        this.#cache.clear();
        this.#logger.info("lcm: retention deleted conversations", { deleted: report.deleted.length, bytesAfter: report.storedBytesAfter });
      }
      return report;
    } catch (error) {
      this.#logger.warn("lcm: retention failed", { error: describeError(error) });
      return null;
    }
  }

  /** Hard delete of everything stored for a session (messages, summaries, index entries, payloads). */
  async forgetSession(sessionId: string): Promise<DeleteReport | null> {
    const id = this.#canonical(sessionId);
    const s = this.#sessions.get(id);
    if (s) {
      s.abort.abort();
      this.#sessions.delete(id);
    }
    for (const [alias, target] of this.#aliases) if (target === id || alias === sessionId) this.#aliases.delete(alias);
    const report = await deleteSession(this.store, id);
    this.#cache.clear();
    return report;
  }

  #canonical(sessionId: string): string {
    let id = sessionId;
    for (let hops = 0; hops < 32 && this.#aliases.has(id); hops++) id = this.#aliases.get(id)!;
    return id;
  }

  #session(sessionId?: string): SessionState {
    const id = this.#canonical(sessionId || this.#currentSession);
    this.#lastActive = id;
    let s = this.#sessions.get(id);
    if (s && !this.store.getConversation(s.conversationId)) {
      // Deleted underneath us (retention, another process): start afresh.
      s.abort.abort();
      this.#sessions.delete(id);
      s = undefined;
    }
    if (!s) {
      const conversation = this.store.conversation(id);
      s = {
        sessionId: id,
        conversationId: conversation.id,
        queue: Promise.resolve(),
        prepared: null,
        preparing: null,
        abort: new AbortController(),
        lastAssembly: null,
        lastCompaction: null,
        rescue: null,
      };
      this.#sessions.set(id, s);
    }
    if (this.#resetPending === id) {
      this.#resetPending = null;
      s.lastAssembly = null;
      this.store.setFrontier(s.conversationId, []);
    }
    return s;
  }

  #locked<T>(s: SessionState, fn: () => Promise<T>): Promise<T> {
    const run = s.queue.then(fn, fn);
    s.queue = run.catch(() => undefined);
    return run;
  }

  // ---------------------------------------------------------------- budgets

  #window(): number {
    return this.contextLength > 0 ? this.contextLength : this.#ctx.contextLength && this.#ctx.contextLength > 0 ? this.#ctx.contextLength : DEFAULT_WINDOW;
  }

  #threshold(): number {
    return this.thresholdTokens > 0 ? this.thresholdTokens : Math.floor(this.#window() * this.thresholdPercent);
  }

  /** The most an assembled request may take: under the threshold, so it does not re-trigger compaction at once. */
  #assemblyBudget(): number {
    return Math.max(256, Math.floor(Math.min(this.#threshold(), this.#window()) * 0.9));
  }

  #target(): number {
    return Math.max(128, Math.floor(this.#threshold() * this.config.target_ratio));
  }

  #planOptions(pressure: boolean): PlanOptions {
    const target = this.#target();
    return {
      freshTailCount: this.config.fresh_tail_count,
      freshTailMaxTokens: this.config.fresh_tail_max_tokens ?? Math.max(256, Math.floor(target * 0.4)),
      leafChunkTokens: Math.max(256, Math.min(this.config.leaf_chunk_tokens, Math.floor(this.#threshold() / 4))),
      leafMinMessages: this.config.leaf_min_messages,
      fanout: this.config.condensed_fanout,
      maxDepth: this.config.max_depth,
      summaryBudget: Math.max(256, Math.floor(target * 0.5)),
      pressure,
    };
  }

  #deps(): RunDeps {
    return {
      store: this.store,
      summarizer: this.#summarizer,
      loadShapes: (ids) => this.#loadShapes(ids),
      logger: this.#logger,
      summaryOverhead: SUMMARY_OVERHEAD_TOKENS,
      targetTokens: { leaf: this.config.leaf_target_tokens, condensed: this.config.condensed_target_tokens },
    };
  }

  #loadShapes(ids: readonly number[]): Map<number, MessageShape> {
    const out = new Map<number, MessageShape>();
    const missing: number[] = [];
    for (const id of ids) {
      const s = this.#shapes.get(id);
      if (s) out.set(id, s);
      else missing.push(id);
    }
    if (missing.length) {
      for (const m of this.store.getMessagesByIds(missing)) {
        const shape: MessageShape = { id: m.id, role: m.role, tokens: m.tokens, toolCallIds: m.toolCallIds, toolCallId: m.toolCallId };
        out.set(m.id, shape);
        if (this.#shapes.size > 50_000) this.#shapes.clear();
        this.#shapes.set(m.id, shape);
      }
    }
    return out;
  }

  // ---------------------------------------------------------------- ingestion

  /** Store what is new in a host list (idempotent). Leading system messages are the host's prompt, not history. */
  #ingest(s: SessionState, messages: readonly Message[]): { result: IngestResult; head: Message[]; live: Map<number, Message> } {
    let headCount = 0;
    while (headCount < messages.length && (messages[headCount]!.role === "system" || messages[headCount]!.role === "developer")) headCount++;
    const result = this.store.ingest(s.conversationId, messages, {
      isSynthetic: (m, i) => i < headCount || isEngineMessage(m),
    });
    this.#metrics.ingested += result.appended;
    const live = new Map<number, Message>();
    result.ids.forEach((id, i) => {
      if (id !== null && i >= headCount) live.set(id, messages[i]!);
    });
    return { result, head: messages.slice(0, headCount), live };
  }

  // ---------------------------------------------------------------- token tracking

  override updateModel(model: string, contextLength: number, options: UpdateModelOptions = {}): void {
    super.updateModel(model, contextLength, options);
    if (this.#startModel === null) this.#startModel = model || null;
    else if (model && model !== this.#startModel) this.#summarizer.followModel(model);
  }

  updateFromResponse(usage: Usage): void {
    this.recordUsage(usage);
    // What the provider counts beyond the messages (every tool schema, framing), learnt from real usage.
    if (this.#lastRequestTokens > 0 && this.lastPromptTokens > 0) {
      this.#requestOverhead = Math.max(0, Math.min(Math.floor(this.#window() / 2), this.lastPromptTokens - this.#lastRequestTokens));
    }
    this.#lastRequestTokens = 0;
  }

  shouldCompress(promptTokens?: number): boolean {
    const tokens = promptTokens ?? this.lastPromptTokens;
    const threshold = this.#threshold();
    return threshold > 0 && tokens >= threshold;
  }

  override shouldCompressPreflight(messages: readonly Message[]): boolean {
    return this.shouldCompress(defaultTokenCounter.countMessages(messages as Message[]));
  }

  override hasContentToCompress(messages: readonly Message[]): boolean {
    return messages.some((m) => m.role !== "system" && m.role !== "developer" && !isEngineMessage(m));
  }

  // ---------------------------------------------------------------- compress

  async compress(messages: Message[], options: CompressOptions = {}): Promise<Message[]> {
    if (this.#closed) return messages;
    const started = Date.now();
    let s: SessionState;
    try {
      s = this.#session(options.sessionId);
    } catch (error) {
      this.#logger.error("lcm: store unavailable, compress leaves the conversation unchanged", { error: String(error) });
      return messages;
    }
    return this.#locked(s, async () => {
      try {
        this.#metrics.compressCalls++;
        const rejectionsBefore = this.#summarizer.stats.rejections;
        const { head, live } = this.#ingest(s, messages);
        const signal = options.signal;
        const headTokens = defaultTokenCounter.countMessages(head);

        // 1. Work prepared after earlier turns: wait for it if it is still running, then publish it.
        let published = 0;
        let stale = 0;
        if (s.preparing) {
          // Same work as ours: wait for it, but never longer than the compress time budget.
          const pending = s.preparing;
          const wait = AbortSignal.timeout(Math.max(1, this.config.compress_time_budget_ms - (Date.now() - started)));
          const work = await raceAbort(pending, signal ? AbortSignal.any([signal, wait]) : wait);
          if (work && !s.prepared) s.prepared = work;
        }
        if (signal?.aborted) return messages;
        if (s.prepared?.steps.length) {
          const out = await publishPrepared(this.store, s.prepared, this.#logger);
          published += out.committed.length;
          stale += out.stale;
        }
        s.prepared = null;

        // 2. Blocking passes while the context is above the target (bounded; all-or-nothing on abort).
        const stopAt = options.force ? 0 : Math.max(0, this.#target() - headTokens);
        const conv = this.store.getConversation(s.conversationId);
        if (conv && (options.force || conv.frontierTokens > stopAt)) {
          const frontier = this.store.getFrontier(s.conversationId);
          const work = await prepareSteps(
            this.#deps(),
            s.conversationId,
            { version: frontier.version, items: virtualFrontier(this.store, frontier.items) },
            {
              plan: this.#planOptions(true),
              maxPasses: this.config.max_passes,
              stopAtTokens: stopAt,
              modelDeadline: started + this.config.compress_time_budget_ms,
              ...(options.focusTopic ? { focusTopic: options.focusTopic } : {}),
              ...(signal ? { signal } : {}),
            },
          ).catch((error: unknown) => {
            if (signal?.aborted) return null;
            throw error;
          });
          if (signal?.aborted) {
            // Keep the finished summaries for the next pass instead of throwing the work away; publish nothing now.
            if (work?.steps.length) s.prepared = work;
            return messages;
          }
          if (work?.steps.length) {
            const out = await publishPrepared(this.store, work, this.#logger);
            published += out.committed.length;
            stale += out.stale;
          }
        }
        this.#metrics.published += published;
        this.#metrics.stalePrepared += stale;

        // 3. Assemble: system prompt + the summaries that fit + the fresh tail (+ the latest request, always).
        const assembled = this.#assemble(s, head, live);
        const kept = keepRequest(assembled.messages, latestRequest(messages), head.length);
        const result = { ...assembled, messages: kept.messages, tokens: assembled.tokens + kept.addedTokens };
        if (signal?.aborted) return messages;
        s.lastCompaction = {
          at: new Date().toISOString(),
          durationMs: Date.now() - started,
          summariesPublished: published,
          staleSteps: stale,
          tokensBefore: defaultTokenCounter.countMessages(messages),
          tokensAfter: result.tokens,
          omittedItems: result.omittedItems,
          // A model answer was refused by the acceptance checks: this pass used a terser level or the deterministic summary.
          ...(this.#summarizer.stats.rejections > rejectionsBefore ? { rejected: this.#summarizer.lastRejection } : {}),
        };
        s.rescue = null;
        if (sameMessages(result.messages, messages)) return messages;
        this.compressionCount++;
        return fresh(result.messages);
      } catch (error) {
        this.#logger.error("lcm: compress failed; the conversation is left unchanged", { error: describeError(error) });
        return messages;
      }
    });
  }

  #assemble(s: SessionState, head: Message[], live: ReadonlyMap<number, Message>, budget = this.#assemblyBudget()): AssembleResult {
    const conv = this.store.getConversation(s.conversationId);
    const key = `${conv?.frontierVersion}|${budget}|${JSON.stringify(head)}`;
    if (s.lastAssembly?.key === key) return s.lastAssembly.result;
    this.#metrics.assemblies++;
    const result = assembleContext(this.store, this.#cache, {
      conversationId: s.conversationId,
      head,
      budget,
      // On a small window one message may not take most of the request: shown shortened, kept whole in the store.
      largeMessageTokens: Math.max(256, Math.min(this.config.large_message_tokens, Math.floor(budget / 3))),
      live,
    });
    s.lastAssembly = { key, result };
    return result;
  }

  /**
   * Request-only safety net: when a request would overflow the window (the
   * host's compress timed out, is not configured, or its usage figure lags),
   * send the assembled context instead. Otherwise nothing: the request stays
   * byte-identical and the provider's prompt cache keeps working.
   */
  override async selectContext(requestMessages: Message[], options: SelectContextOptions = {}): Promise<Message[] | null> {
    if (this.#closed) return null;
    try {
      // Only a request that would not fit the window is replaced: anything smaller is left to the
      // host's compress, because every replacement rewrites the prompt-cache prefix. Nothing else
      // happens on the request path (the turn is ingested by onTurnComplete / tools / compress).
      const tokens = defaultTokenCounter.countMessages(requestMessages);
      const window = options.budgetTokens && options.budgetTokens > 0 ? options.budgetTokens : this.#window();
      // The provider also counts the tool schemas (ours at least) and the host's estimate differs from ours.
      const limit = Math.floor(window * 0.92) - Math.max(this.#toolSchemaTokens(), this.#requestOverhead);
      this.#lastRequestTokens = tokens;
      if (tokens < limit) {
        const known = this.#sessions.get(this.#canonical(options.sessionId || this.#currentSession));
        if (known) known.rescue = null;
        // A long agent turn fires onTurnComplete only at its end: start preparing summaries from here
        // once the request nears the threshold, so the coming compress finds them ready.
        if (this.config.prepare_in_background && tokens >= Math.floor(this.#threshold() * this.config.prepare_ratio)) {
          const s = known ?? this.#session(options.sessionId);
          if (!s.preparing) {
            await this.#locked(s, async () => {
              this.#ingest(s, requestMessages);
            });
            this.#startPreparing(s);
          }
        }
        return null;
      }
      const s = this.#session(options.sessionId);
      return await this.#locked(s, async () => {
        const { head, live } = this.#ingest(s, requestMessages);
        // While the host keeps appending to the list we rescued, keep our selection and append the
        // same new messages to it: the prefix stays byte-identical until it no longer fits.
        const r = s.rescue;
        if (r && requestMessages.length > r.hostLength && JSON.stringify(requestMessages[r.hostLength - 1]) === r.hostLast) {
          const extended = [...r.selection, ...requestMessages.slice(r.hostLength)];
          const extendedTokens = defaultTokenCounter.countMessages(extended);
          if (extendedTokens < limit) {
            this.#lastRequestTokens = extendedTokens;
            s.rescue = { selection: extended, hostLength: requestMessages.length, hostLast: JSON.stringify(requestMessages[requestMessages.length - 1]) };
            this.#metrics.selections++;
            return fresh(extended);
          }
        }
        if (s.prepared?.steps.length) {
          const out = await publishPrepared(this.store, s.prepared, this.#logger);
          this.#metrics.published += out.committed.length;
          s.prepared = null;
        }
        // Re-select below the usual budget, so the following requests can append for a while.
        const budget = Math.max(256, Math.min(Math.floor((this.#target() + this.#assemblyBudget()) / 2), limit - 64));
        const request = latestRequest(requestMessages);
        const raw = this.#assemble(s, head, live, budget);
        const kept = keepRequest(raw.messages, request, head.length);
        const assembled = { ...raw, messages: kept.messages, tokens: raw.tokens + kept.addedTokens };
        // What the assembly must keep (the fresh tail, a huge paste) can still be too big: cut the largest messages.
        const result = assembled.tokens > limit ? { ...assembled, ...this.#fitSelection(assembled.messages, live, limit, request) } : assembled;
        if (result.tokens >= tokens) return null;
        this.#lastRequestTokens = result.tokens;
        this.#metrics.selections++;
        s.rescue = { selection: result.messages, hostLength: requestMessages.length, hostLast: JSON.stringify(requestMessages[requestMessages.length - 1]) };
        // The host is not compacting: prepare summaries so the next re-selection keeps more.
        if (this.config.prepare_in_background) this.#startPreparing(s);
        return fresh(result.messages);
      });
    } catch (error) {
      this.#logger.warn("lcm: selectContext failed; request unchanged", { error: describeError(error) });
      return null;
    }
  }

  /**
   * Shorten the largest non-system messages of a selection until it fits
   * `limit`: head and tail shown, the original kept whole in the store, with
   * a note naming the `lcm_expand` id that returns it.
   */
  #fitSelection(messages: readonly Message[], live: ReadonlyMap<number, Message>, limit: number, request: Message | null): { messages: Message[]; tokens: number } {
    const ids = new Map<string, number>();
    for (const [id, m] of live) ids.set(JSON.stringify(m.content), id);
    const out = messages.slice();
    let total = defaultTokenCounter.countMessages(out);
    const tried = new Set<number>();
    for (let guard = 0; guard < out.length && total > limit; guard++) {
      let at = -1;
      let size = 0;
      out.forEach((m, i) => {
        // The request stays whole: the host checks that the turn's user message reaches the model.
        if (tried.has(i) || m.role === "system" || m.role === "developer" || typeof m.content !== "string" || isRequest(m, request)) return;
        const t = defaultTokenCounter.countMessage(m);
        if (t > size) [at, size] = [i, t];
      });
      if (at < 0 || size < 200) break;
      tried.add(at);
      const id = ids.get(JSON.stringify(out[at]!.content));
      if (id === undefined) continue;
      const keep = Math.max(100, size - (total - limit) - 80);
      const next = shortenMessage(out[at]!, { id, seq: this.store.getMessage(id)?.seq ?? 0 }, size, keep);
      const nextTokens = defaultTokenCounter.countMessage(next);
      if (nextTokens >= size) continue;
      total += nextTokens - size;
      out[at] = next;
    }
    return { messages: out, tokens: total };
  }

  /** Ingest the finished turn, then prepare summaries off the turn path when the context is getting full. */
  override async onTurnComplete(messages: readonly Message[], _usage?: Usage | null, meta: TurnCompleteMeta = {}): Promise<void> {
    if (this.#closed) return;
    try {
      const s = this.#session(meta.sessionId);
      await this.#locked(s, async () => {
        this.#ingest(s, messages);
      });
      if (this.config.prepare_in_background) this.#startPreparing(s);
    } catch (error) {
      this.#logger.warn("lcm: onTurnComplete failed", { error: describeError(error) });
    }
  }

  /** Start (at most one) background preparation for a session. Never awaited by the turn. */
  #startPreparing(s: SessionState): void {
    if (s.preparing || this.#closed) return;
    const conv = this.store.getConversation(s.conversationId);
    if (!conv) return;
    const soft = Math.floor(this.#threshold() * this.config.prepare_ratio);
    if (conv.frontierTokens < soft) return;
    const frontier = this.store.getFrontier(s.conversationId);
    let items = virtualFrontier(this.store, frontier.items);
    // Work already prepared is extended, not redone: its steps are replayed on the newer frontier.
    const previous = s.prepared?.steps ?? [];
    if (previous.length) {
      const replayed = replaySteps(items, previous);
      if (replayed) items = replayed;
      else s.prepared = null;
    }
    const base = s.prepared?.steps ?? [];
    this.#metrics.prepareRuns++;
    const signal = s.abort.signal;
    const job = prepareSteps(
      this.#deps(),
      s.conversationId,
      { version: frontier.version, items },
      { plan: this.#planOptions(false), maxPasses: this.config.max_passes, stopAtTokens: this.#target(), signal },
      base,
    )
      .then((work) => {
        if (signal.aborted || work.steps.length <= base.length) return null;
        // Only the newest preparation is kept; publishing checks every step against the frontier anyway.
        s.prepared = work;
        return work;
      })
      .catch((error: unknown) => {
        if (!signal.aborted) this.#logger.warn("lcm: background preparation failed", { error: describeError(error) });
        return null;
      })
      .finally(() => {
        if (s.preparing === job) s.preparing = null;
      });
    s.preparing = job;
  }

  /** Wait for background work of a session (tests, graceful shutdown). */
  async whenIdle(sessionId?: string): Promise<void> {
    const s = this.#sessions.get(this.#canonical(sessionId || this.#currentSession));
    if (s?.preparing) await s.preparing;
  }

  #schemaTokens: number | null = null;
  /** Tokens of the last request selectContext saw or produced, and the provider's overhead on top of the messages. */
  #lastRequestTokens = 0;
  #requestOverhead = 0;
  #toolSchemaTokens(): number {
    if (this.#schemaTokens === null) this.#schemaTokens = estimateTextTokens(JSON.stringify(this.getToolSchemas()));
    return this.#schemaTokens;
  }

  // ---------------------------------------------------------------- pruning

  /** Shorten old large tool results in place of an LLM pass: the originals are in the store, so nothing is lost. */
  override pruneToolResultsOnly(messages: Message[], options: PruneOptions = {}): PruneResult {
    try {
      const s = this.#session(options.sessionId);
      const { result } = this.#ingest(s, messages);
      const keepFrom = Math.max(0, messages.length - this.protectLastN);
      let pruned = 0;
      const out = messages.map((m, i) => {
        if (i >= keepFrom || m.role !== "tool") return m;
        const id = result.ids[i];
        if (id === null || id === undefined) return m;
        const tokens = defaultTokenCounter.countMessage(m);
        if (tokens <= this.config.large_message_tokens) return m;
        const stored = this.store.getMessage(id);
        pruned++;
        return shortenMessage(m, { id, seq: stored?.seq ?? i }, tokens, Math.floor(this.config.large_message_tokens / 4));
      });
      return pruned ? { messages: out, pruned } : { messages, pruned: 0 };
    } catch (error) {
      this.#logger.warn("lcm: pruneToolResultsOnly failed", { error: describeError(error) });
      return { messages, pruned: 0 };
    }
  }

  // ---------------------------------------------------------------- tools

  override getToolSchemas(): ToolSchema[] {
    return lcmToolSchemas({ crossConversation: this.config.cross_conversation });
  }

  override async handleToolCall(name: string, args: unknown, options: ToolCallOptions = {}): Promise<string> {
    if (!isLcmTool(name)) return toolError(`Unknown context engine tool: ${name}`);
    try {
      const s = this.#session(options.sessionId);
      return await this.#locked(s, async () => {
        // The current turn must be searchable too: ingest what the host shows us first.
        if (options.messages?.length) this.#ingest(s, options.messages);
        return await handleLcmToolCall(this.store, name, args, {
          conversationId: s.conversationId,
          allowCrossConversation: this.config.cross_conversation,
        });
      });
    } catch (error) {
      return toolError(`${name} failed: ${describeError(error)}`);
    }
  }

  // ---------------------------------------------------------------- lifecycle

  override onSessionStart(sessionId: string, options: SessionStartOptions = {}): void {
    const id = sessionId || DEFAULT_SESSION;
    // A compaction boundary that renames the session (Hermes starts a new session id) continues the
    // same conversation: without this the summaries would be stranded under the old id.
    if (options.boundaryReason === "compression" && options.oldSessionId && options.oldSessionId !== id) {
      const target = this.#canonical(options.oldSessionId);
      if (target !== id) this.#aliases.set(id, target);
    }
    this.#currentSession = id;
    // A reset followed by a new session id leaves the old conversation's context as it was.
    if (this.#resetPending !== null && this.#canonical(id) !== this.#resetPending) this.#resetPending = null;
    try {
      this.#session(id);
      // Off the hook's path: it reports its own failures and never rejects.
      void this.applyRetention();
    } catch (error) {
      this.#logger.error("lcm: cannot open the store", { error: describeError(error) });
    }
  }

  override async onSessionEnd(sessionId: string, messages: readonly Message[]): Promise<void> {
    const s = this.#sessions.get(this.#canonical(sessionId || this.#currentSession));
    if (!s) return;
    try {
      await this.#locked(s, async () => {
        if (messages.length) this.#ingest(s, messages);
      });
    } catch (error) {
      this.#logger.warn("lcm: final ingest failed", { error: describeError(error) });
    }
    s.abort.abort();
    this.#sessions.delete(s.sessionId);
    await this.applyRetention();
  }

  /** `/new` or `/reset`: the stored history stays searchable, the active context starts empty. */
  /**
   * `/new` or `/reset`: background work of the session stops. If the host then
   * continues under the same session id, its active context starts empty (the
   * stored history stays searchable); under a new id the old one is left as it was.
   */
  override onSessionReset(): void {
    super.onSessionReset();
    const id = this.#canonical(this.#currentSession);
    const s = this.#sessions.get(id);
    if (s) {
      s.abort.abort();
      s.abort = new AbortController();
      s.prepared = null;
      s.preparing = null;
      s.lastAssembly = null;
      s.rescue = null;
    }
    this.#resetPending = id;
  }

  override getStatus(): EngineStatus {
    const base = super.getStatus();
    const lcm: Record<string, unknown> = { ...this.#metrics, summarizer: this.#summarizer.stats };
    try {
      if (!this.#closed) {
        const stats = this.store.stats();
        lcm.database = { path: stats.path, bytes: stats.fileBytes, conversations: stats.conversations, messages: stats.messages, summaries: stats.summaries };
        const s = this.#sessions.get(this.#canonical(this.#currentSession)) ?? this.#sessions.get(this.#lastActive);
        const conv = s ? this.store.getConversation(s.conversationId) : null;
        if (conv && s) {
          lcm.session = {
            sessionId: s.sessionId,
            messages: conv.messageCount,
            messageTokens: conv.messageTokens,
            frontierItems: conv.frontierCount,
            frontierTokens: conv.frontierTokens,
            preparedSteps: s.prepared?.steps.length ?? 0,
            preparing: s.preparing !== null,
            lastCompaction: s.lastCompaction,
          };
        }
      }
    } catch (error) {
      lcm.error = describeError(error);
    }
    return { ...base, lcm };
  }
}

function sameMessages(a: readonly Message[], b: readonly Message[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i] && JSON.stringify(a[i]) !== JSON.stringify(b[i])) return false;
  }
  return true;
}

/** New message objects for the host: it may set fields on what it gets (cache hints) without touching our caches. */
function fresh(messages: readonly Message[]): Message[] {
  return messages.map((m) => ({ ...m }) as Message);
}

/** The pending work, or null when the signal aborts first or the work fails (the caller starts afresh). */
function raceAbort<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T | null> {
  return raceAbortOrNull(promise, signal).catch(() => null);
}
