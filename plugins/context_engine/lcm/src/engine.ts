import { ContextEngine, defaultTokenCounter, describeError, silentLogger, toolError } from "@context-engine/core";
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
import { RowCache } from "./assembly/assembler.js";
import { isEngineMessage } from "./assembly/render.js";
import type { Summarizer } from "./compaction/summarizer.js";
import { configSchema, parseConfig } from "./config.js";
import type { LcmConfig } from "./config.js";
import { Budgets } from "./engine/budgets.js";
import { runCompress } from "./engine/compress.js";
import { createSummarizer, newMetrics, windowOf } from "./engine/parts.js";
import type { EngineParts } from "./engine/parts.js";
import { IndexDrain } from "./engine/index-drain.js";
import { BacklogDrain } from "./engine/drain.js";
import { ImportDrain } from "./engine/import-drain.js";
import { Embeddings } from "./embeddings/embedder.js";
import { startPreparing } from "./engine/preparation.js";
import { selectLocked } from "./engine/selection.js";
import { DEFAULT_SESSION, SessionRegistry } from "./engine/sessions.js";
import type { EngineSession } from "./engine/session.js";
import { ShapeBook } from "./engine/shapes.js";
import { LcmStoreUnavailableError, StoreHandle } from "./engine/store-handle.js";
import { resolveStore } from "./engine/store-spec.js";
import type { StoreDescription } from "./engine/store-spec.js";
import { describeEngine, engineStatus, retrievalInWords } from "./engine/status.js";
import { endSession } from "./engine/session-end.js";
import { ingest } from "./engine/turn.js";
import { fresh, turnIdentity } from "./engine/hook-messages.js";
import { RequestSize } from "./engine/request-size.js";
import { StoreTrouble } from "./engine/store-trouble.js";
import { WorkClock } from "./engine/work-clock.js";
import { LogSettler } from "./engine/log-settle.js";
import { deleteSession } from "./retention/index.js";
import { pruneLargeResults, retain, runToolCall } from "./engine/maintenance.js";
import type { DeleteReport, RetentionReport } from "./retention/index.js";
import type { LcmStoreDriver } from "./store/types.js";
import { isLcmTool, lcmToolSchemas } from "./tools/index.js";

export { LcmStoreUnavailableError } from "./engine/store-handle.js";
export type { StoreDescription } from "./engine/store-spec.js";

/**
 * Lossless Context Management: every message is kept in a store (a SQLite
 * file, or PostgreSQL shared by many processes), older ones are summarised
 * into a DAG whose nodes point back to their sources, and the agent gets
 * tools to search and expand that history.
 *
 * The class keeps the contract's bookkeeping and delegates: sessions and
 * their locks (`engine/sessions.ts`), the store lease (`engine/store-handle.ts`),
 * ingest and assembly (`engine/turn.ts`), background preparation
 * (`engine/preparation.ts`), compaction (`engine/compress.ts`) and request
 * selection (`engine/selection.ts`); background work starts only when no hook
 * is in flight (`engine/work-clock.ts`). Every store call on those paths is
 * awaited; `shouldCompress`, `getStatus` and `updateFromResponse` answer from
 * figures kept in memory.
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
  readonly #sessions = new SessionRegistry();
  readonly #handle: StoreHandle;
  readonly #parts: EngineParts;
  #closed = false;
  /** The model the engine started with; after `/model` summaries follow the new one (unless `summary_model` is set). */
  #startModel: string | null;
  /** A store failure is logged once per streak, not once per hook. */
  readonly #trouble: StoreTrouble;
  /** Settles the store's write-ahead log when the engine's work pauses (engine/log-settle.ts). */
  readonly #settler: LogSettler;
  /** Tool schemas and the provider's overhead beyond a request's messages. */
  readonly #request = new RequestSize(() => this.getToolSchemas());

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
    this.#summarizer = createSummarizer(this.config, ctx, this.#logger);
    // Retention run by any instance on the same store spares the sessions live here.
    this.#handle = new StoreHandle(resolveStore(this.config, ctx.dataDir, ctx.env ?? process.env), this.#logger, () => this.#sessions.liveIds());
    const clock = new WorkClock(() => this.#settler.paused());
    this.#settler = new LogSettler(clock, () => this.#handle.current, this.#logger);
    this.#parts = {
      config: this.config,
      logger: this.#logger,
      summarizer: this.#summarizer,
      cache: new RowCache(),
      shapes: new ShapeBook(),
      sessions: this.#sessions,
      handle: this.#handle,
      budgets: new Budgets(windowOf(this, ctx.contextLength), this.config),
      metrics: newMetrics(),
      indexing: new IndexDrain(this.#logger, () => this.#closed, clock, this.config.drain_cpu_share),
      drain: new BacklogDrain(),
      imports: new ImportDrain(),
      clock,
      embeddings: this.config.embeddings ? new Embeddings(this.config.embeddings, this.#logger, () => this.#closed, ctx.env ?? process.env) : null,
      isClosed: () => this.#closed,
    };
    this.#trouble = new StoreTrouble(this.#logger, this.#parts.metrics);
  }

  // ---------------------------------------------------------------- store

  /** Which store this engine uses (SQLite file, or PostgreSQL URL without its password, and schema). */
  get storeInfo(): StoreDescription {
    return this.#handle.description;
  }

  /**
   * The store, once open. A SQLite store opens here on first access (its
   * driver is synchronous); a PostgreSQL store opens with the first hook or
   * `openStore()`. Every method may answer a promise: await it.
   */
  get store(): LcmStoreDriver {
    if (this.#closed) throw new LcmStoreUnavailableError("LCM engine is closed");
    const store = this.#handle.current ?? this.#handle.openSync();
    if (!store) throw new LcmStoreUnavailableError(`the ${this.#handle.description.kind} store is not open yet: await engine.openStore()`);
    return store;
  }

  /** Open the store now (hooks do it on first use). Rejects with `LcmStoreUnavailableError`, in plain words, when it cannot be opened. */
  openStore(): Promise<LcmStoreDriver> {
    return this.#handle.open();
  }

  /**
   * Whether the store can be opened here (hosts and `plugins list` ask before
   * use). Throws `LcmStoreUnavailableError` saying what is wrong and what to
   * do; a loader then falls back to its default engine.
   */
  async isAvailable(): Promise<boolean> {
    await this.#handle.open();
    return true;
  }

  /** What `plugins info` shows beyond the name: the store in use (never a password). */
  describe(): Record<string, string> {
    return describeEngine(this.#parts);
  }

  /** Stop background work and give the database back (closed with its last user). The engine cannot be used afterwards. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#settler.stop();
    this.#parts.embeddings?.stop();
    // Imports still storing a backlog are finished before the store is given back.
    const store = this.#handle.current;
    if (store) await this.#parts.imports.finishAll(store, this.#sessions.all(), this.#logger);
    const pending = [...this.#sessions.all()].map((s) => s.preparing);
    this.#sessions.clear();
    await Promise.allSettled([...pending, this.#parts.imports.idle(), this.#parts.indexing.idle(), this.#parts.drain.idle(), this.#parts.embeddings?.idle()]);
    await this.#handle.close();
  }

  /** Apply `engines.lcm.retention` now (also done when a session starts or ends). Live sessions are protected. Null when no policy is configured. */
  async applyRetention(): Promise<RetentionReport | null> {
    return retain(this.#parts);
  }

  /** Hard delete of everything stored for a session (messages, summaries, index entries, payloads). */
  async forgetSession(sessionId: string): Promise<DeleteReport | null> {
    const store = await this.#handle.open();
    const id = this.#sessions.forget(sessionId);
    const report = await deleteSession(store, id);
    this.#parts.cache.clear();
    return report;
  }

  /** The open store and the session's state; rejects with `LcmStoreUnavailableError` when the store cannot be opened. */
  async #session(sessionId?: string): Promise<{ store: LcmStoreDriver; s: EngineSession }> {
    const store = await this.#handle.open();
    const s = await this.#sessions.get(store, sessionId);
    // A frontier left over the threshold (an import, a restart mid-drain) is drained without waiting for a compress.
    this.#parts.drain.kick(this.#parts, store, s);
    // An import left unfinished (a restart): resumed once a hook's list carries its backlog (engine/turn.ts).
    this.#parts.imports.kick(this.#parts, store, s);
    // Messages and summaries not embedded yet (a restart, summaries published since) are embedded off the hook's path.
    this.#parts.embeddings?.kick(store);
    return { store, s };
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
    this.#request.noteUsage(this.lastPromptTokens, this.#parts.budgets.window());
  }

  shouldCompress(promptTokens?: number): boolean {
    const tokens = promptTokens ?? this.lastPromptTokens;
    const threshold = this.#parts.budgets.threshold();
    return threshold > 0 && tokens >= threshold;
  }

  override shouldCompressPreflight(messages: readonly Message[]): boolean {
    // Newest first, stopping at the threshold: a long history handed over at once is not counted whole.
    const threshold = this.#parts.budgets.threshold();
    if (threshold <= 0) return false;
    let tokens = 0;
    for (let i = messages.length - 1; i >= 0; i--) {
      tokens += defaultTokenCounter.countMessage(messages[i]!);
      if (tokens >= threshold) return true;
    }
    return false;
  }

  override hasContentToCompress(messages: readonly Message[]): boolean {
    return messages.some((m) => m.role !== "system" && m.role !== "developer" && !isEngineMessage(m));
  }

  // ---------------------------------------------------------------- compress

  async compress(messages: Message[], options: CompressOptions = {}): Promise<Message[]> {
    return this.#parts.clock.hook(async () => {
      if (this.#closed) return messages;
      this.#parts.budgets.noteHostBudget(options.budgetTokens);
      const started = Date.now();
      try {
        const { store, s } = await this.#session(options.sessionId);
        return await s.locked(async () => {
          const out = await runCompress(this.#parts, store, s, messages, options, started);
          this.#trouble.ok();
          this.#handle.scheduleStatsRefresh();
          if (!out.changed) return messages;
          // A pass bounded by max_passes can leave a long history over the threshold: the drain takes it from here.
          this.#parts.drain.check(this.#parts, store, s);
          this.compressionCount++;
          return fresh(out.messages);
        });
      } catch (error) {
        this.#trouble.failed("compress", error);
        return messages;
      }
    });
  }

  // ---------------------------------------------------------------- selection

  /**
   * Request-only safety net: when a request would overflow the window (the
   * host's compress timed out, is not configured, or its usage figure lags),
   * send the assembled context instead. Otherwise nothing: the request stays
   * byte-identical and the provider's prompt cache keeps working.
   */
  override async selectContext(requestMessages: Message[], options: SelectContextOptions = {}): Promise<Message[] | null> {
    return this.#parts.clock.hook(async () => {
      if (this.#closed) return null;
      // Only a request that would not fit the window is replaced: every replacement rewrites the prompt-cache prefix.
      const tokens = defaultTokenCounter.countMessages(requestMessages);
      // The host's input budget when it says it (tool schemas and output reserve already out), else our own guess.
      this.#parts.budgets.noteHostBudget(options.budgetTokens);
      const limit = this.#parts.budgets.requestLimit(this.#request.beyondMessages());
      this.#request.lastRequestTokens = tokens;
      if (tokens < limit) {
        this.#sessions.peek(options.sessionId)?.noteRescue(null);
        // A long agent turn fires onTurnComplete only at its end: store the request and prepare summaries
        // from here once it nears the threshold, so the coming compress finds them ready.
        if (!this.config.prepare_in_background || tokens < this.#parts.budgets.prepareAt()) return null;
      }
      try {
        const { store, s } = await this.#session(options.sessionId);
        const result = await s.locked(() => selectLocked(this.#parts, store, s, requestMessages, { tokens, limit }, options));
        this.#trouble.ok();
        if (!result) return null;
        this.#request.lastRequestTokens = result.tokens;
        return fresh(result.messages);
      } catch (error) {
        this.#trouble.failed("selectContext", error);
        return null;
      }
    });
  }

  /**
   * Store the finished turn, then prepare summaries off the turn path when the context is getting full.
   * With the host's turn identity (`meta.turnId` and `meta.turnMessages`) the turn is stored by key, once,
   * however often it is delivered; without it, what follows the host's last list (see `engine/turn.ts`).
   */
  override async onTurnComplete(messages: readonly Message[], _usage?: Usage | null, meta: TurnCompleteMeta = {}): Promise<void> {
    return this.#parts.clock.hook(async () => {
      if (this.#closed) return;
      try {
        const { store, s } = await this.#session(meta.sessionId);
        const turn = turnIdentity(meta);
        await s.locked(async () => {
          await ingest(this.#parts, store, s, messages, { ...(turn ? { turn } : {}), times: meta.messageTimes });
        });
        this.#trouble.ok();
        if (this.config.prepare_in_background) startPreparing(this.#parts, store, s);
      } catch (error) {
        this.#trouble.failed("onTurnComplete", error);
      }
    });
  }

  /** Wait for background work of a session, its scheduled drain included (tests, graceful shutdown). */
  async whenIdle(sessionId?: string): Promise<void> {
    const s = this.#sessions.peek(sessionId);
    // An import's backlog first: when it is stored it starts the index and backlog drains waited for below.
    if (s) await this.#parts.imports.idle(s);
    if (s?.preparing) await s.preparing;
    if (s) await this.#parts.drain.idle(s);
    await this.#parts.indexing.idle();
    await this.#parts.embeddings?.idle();
    await this.#settler.flush();
  }

  /** Shorten old large tool results in place of an LLM pass: the originals are in the store, so nothing is lost. */
  override async pruneToolResultsOnly(messages: Message[], options: PruneOptions = {}): Promise<PruneResult> {
    return this.#parts.clock.hook(async () => {
      try {
        const { store, s } = await this.#session(options.sessionId);
        return await pruneLargeResults(this.#parts, store, s, messages, this.protectLastN, options.messageTimes);
      } catch (error) {
        this.#trouble.failed("pruneToolResultsOnly", error);
        return { messages, pruned: 0 };
      }
    });
  }

  override getToolSchemas(): ToolSchema[] {
    return lcmToolSchemas({ crossConversation: this.config.cross_conversation, semantic: this.#parts.embeddings !== null });
  }

  override async handleToolCall(name: string, args: unknown, options: ToolCallOptions = {}): Promise<string> {
    return this.#parts.clock.hook(async () => {
      if (!isLcmTool(name)) return toolError(`Unknown context engine tool: ${name}`);
      try {
        const { store, s } = await this.#session(options.sessionId);
        // A search must not miss an import's backlog: stored first when that is quick (import-drain.ts).
        await this.#parts.imports.finishForTool(this.#parts, store, s);
        return await s.locked(() => runToolCall(this.#parts, store, s, name, args, options.messages));
      } catch (error) {
        return toolError(`${name} failed: ${describeError(error)}`);
      }
    });
  }

  // ---------------------------------------------------------------- lifecycle

  /** Opens the store (an unopenable one is reported here, in plain words) and the session's conversation. */
  override async onSessionStart(sessionId: string, options: SessionStartOptions = {}): Promise<void> {
    return this.#parts.clock.hook(async () => {
      const id = sessionId || DEFAULT_SESSION;
      const registry = this.#sessions;
      // A compaction boundary that renames the session (Hermes starts a new session id) continues the
      // same conversation: without this the summaries would be stranded under the old id.
      if (options.boundaryReason === "compression" && options.oldSessionId && options.oldSessionId !== id) registry.alias(id, options.oldSessionId);
      registry.current = id;
      // A reset followed by a new session id leaves the old conversation's context as it was.
      if (registry.resetPending !== null && registry.canonical(id) !== registry.resetPending) registry.resetPending = null;
      if (this.#closed) return;
      await this.#session(id);
      // Off the hook's path: it reports its own failures and never rejects.
      void this.applyRetention();
    });
  }

  override async onSessionEnd(sessionId: string, messages: readonly Message[]): Promise<void> {
    return this.#parts.clock.hook(async () => {
      if (await endSession(this.#parts, this.#trouble, sessionId, messages, () => this.#session(sessionId))) await this.applyRetention();
    });
  }

  /**
   * `/new` or `/reset`: background work of the session stops. If the host then
   * continues under the same session id, its active context starts empty (the
   * stored history stays searchable); under a new id the old one is left as it was.
   */
  override onSessionReset(): void {
    super.onSessionReset();
    const id = this.#sessions.canonical(this.#sessions.current);
    this.#sessions.peek(id)?.reset();
    this.#sessions.resetPending = id;
  }

  /** From figures kept in memory: never a store call. */
  override getStatus(): EngineStatus {
    return { ...super.getStatus(), retrieval: retrievalInWords(this.#parts), lcm: engineStatus(this.#parts, this.#closed) };
  }

  /** CPU time (ms) of the engine's background work so far (also `getStatus().lcm.backgroundCpuMs`): not any hook's cost. */
  get backgroundCpuMs(): number {
    return this.#parts.clock.backgroundCpuMs;
  }
}
