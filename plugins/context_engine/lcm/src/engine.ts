import { ContextEngine, defaultTokenCounter, describeError, describeErrorWithCauses, estimateTextTokens, silentLogger, toolError } from "@context-engine/core";
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
import { Embeddings } from "./embeddings/embedder.js";
import { startPreparing } from "./engine/preparation.js";
import { reselect } from "./engine/selection.js";
import { DEFAULT_SESSION, SessionRegistry } from "./engine/sessions.js";
import type { EngineSession } from "./engine/session.js";
import { ShapeBook } from "./engine/shapes.js";
import { LcmStoreUnavailableError, StoreHandle } from "./engine/store-handle.js";
import { resolveStore } from "./engine/store-spec.js";
import type { StoreDescription } from "./engine/store-spec.js";
import { engineStatus } from "./engine/status.js";
import { ingest } from "./engine/turn.js";
import type { TurnIdentity } from "./engine/turn.js";
import { deleteSession } from "./retention/index.js";
import { pruneLargeResults, retain } from "./engine/maintenance.js";
import type { DeleteReport, RetentionReport } from "./retention/index.js";
import type { LcmStoreDriver } from "./store/types.js";
import { handleLcmToolCall, isLcmTool, lcmToolSchemas } from "./tools/index.js";

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
 * selection (`engine/selection.ts`). Every store call on those paths is
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
  #storeTrouble = false;

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
      indexing: new IndexDrain(this.#logger, () => this.#closed, this.config.drain_cpu_share),
      drain: new BacklogDrain(),
      embeddings: this.config.embeddings ? new Embeddings(this.config.embeddings, this.#logger, () => this.#closed, ctx.env ?? process.env) : null,
      isClosed: () => this.#closed,
    };
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
    const d = this.#handle.description;
    const e = this.#parts.embeddings;
    return {
      store: d.kind === "postgres" ? `PostgreSQL ${d.location} (schema ${d.schema})` : `SQLite ${d.location}`,
      retrieval: e ? `hybrid: words (BM25) + vectors (${e.model} at ${e.client.url})` : "words (BM25); no embedding provider configured",
    };
  }

  /** Stop background work and give the database back (closed with its last user). The engine cannot be used afterwards. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#parts.embeddings?.stop();
    const pending = [...this.#sessions.all()].map((s) => s.preparing);
    this.#sessions.clear();
    await Promise.allSettled([...pending, this.#parts.indexing.idle(), this.#parts.drain.idle(), this.#parts.embeddings?.idle()]);
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
    // Messages and summaries not embedded yet (a restart, summaries published since) are embedded off the hook's path.
    this.#parts.embeddings?.kick(store);
    return { store, s };
  }

  /**
   * Fail open on a store failure after the store was opened (a dropped
   * connection, an I/O error): logged once per streak and counted; the next
   * call catches up from the host's list. An unopenable store is thrown to
   * the host (it reports the failure; our hooks then change nothing).
   */
  #storeFailed(hook: string, error: unknown): void {
    if (error instanceof LcmStoreUnavailableError) throw error;
    this.#parts.metrics.storeFailures++;
    if (!this.#storeTrouble) {
      this.#storeTrouble = true;
      this.#logger.error(`lcm: ${hook} failed; the conversation is left unchanged`, { error: describeErrorWithCauses(error) });
    } else this.#logger.debug(`lcm: ${hook} failed again`, { error: describeErrorWithCauses(error) });
  }

  #storeOk(): void {
    if (!this.#storeTrouble) return;
    this.#storeTrouble = false;
    this.#logger.info("lcm: the store answers again");
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
      this.#requestOverhead = Math.max(0, Math.min(Math.floor(this.#parts.budgets.window() / 2), this.lastPromptTokens - this.#lastRequestTokens));
    }
    this.#lastRequestTokens = 0;
  }

  shouldCompress(promptTokens?: number): boolean {
    const tokens = promptTokens ?? this.lastPromptTokens;
    const threshold = this.#parts.budgets.threshold();
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
    this.#parts.budgets.noteHostBudget(options.budgetTokens);
    const started = Date.now();
    try {
      const { store, s } = await this.#session(options.sessionId);
      return await s.locked(async () => {
        const out = await runCompress(this.#parts, store, s, messages, options, started);
        this.#storeOk();
        this.#handle.scheduleStatsRefresh();
        if (!out.changed) return messages;
        // A pass bounded by max_passes can leave a long history over the threshold: the drain takes it from here.
        this.#parts.drain.check(this.#parts, store, s);
        this.compressionCount++;
        return fresh(out.messages);
      });
    } catch (error) {
      this.#storeFailed("compress", error);
      return messages;
    }
  }

  // ---------------------------------------------------------------- selection

  /**
   * Request-only safety net: when a request would overflow the window (the
   * host's compress timed out, is not configured, or its usage figure lags),
   * send the assembled context instead. Otherwise nothing: the request stays
   * byte-identical and the provider's prompt cache keeps working.
   */
  override async selectContext(requestMessages: Message[], options: SelectContextOptions = {}): Promise<Message[] | null> {
    if (this.#closed) return null;
    // Only a request that would not fit the window is replaced: every replacement rewrites the prompt-cache prefix.
    const tokens = defaultTokenCounter.countMessages(requestMessages);
    // The host's input budget when it says it (tool schemas and output reserve already out), else our own guess.
    this.#parts.budgets.noteHostBudget(options.budgetTokens);
    const limit = this.#parts.budgets.requestLimit(Math.max(this.#toolSchemaTokens(), this.#requestOverhead));
    this.#lastRequestTokens = tokens;
    if (tokens < limit) {
      this.#sessions.peek(options.sessionId)?.noteRescue(null);
      // A long agent turn fires onTurnComplete only at its end: store the request and prepare summaries
      // from here once it nears the threshold, so the coming compress finds them ready.
      if (!this.config.prepare_in_background || tokens < this.#parts.budgets.prepareAt()) return null;
    }
    try {
      const { store, s } = await this.#session(options.sessionId);
      return await s.locked(async () => {
        if (tokens < limit) {
          await ingest(this.#parts, store, s, requestMessages, { times: options.messageTimes });
          startPreparing(this.#parts, store, s);
          return null;
        }
        const result = await reselect(this.#parts, store, s, requestMessages, { tokens, limit }, options.incomingMessage, options.messageTimes);
        this.#storeOk();
        // A selection over the host's budget would be dropped anyway: leave the request to its compaction.
        if (!result || result.tokens > this.#parts.budgets.input()) return null;
        this.#lastRequestTokens = result.tokens;
        this.#parts.metrics.selections++;
        return fresh(result.messages);
      });
    } catch (error) {
      this.#storeFailed("selectContext", error);
      return null;
    }
  }

  /**
   * Store the finished turn, then prepare summaries off the turn path when the context is getting full.
   * With the host's turn identity (`meta.turnId` and `meta.turnMessages`) the turn is stored by key, once,
   * however often it is delivered; without it, what follows the host's last list (see `engine/turn.ts`).
   */
  override async onTurnComplete(messages: readonly Message[], _usage?: Usage | null, meta: TurnCompleteMeta = {}): Promise<void> {
    if (this.#closed) return;
    try {
      const { store, s } = await this.#session(meta.sessionId);
      const turn = turnIdentity(meta);
      await s.locked(async () => {
        await ingest(this.#parts, store, s, messages, { ...(turn ? { turn } : {}), times: meta.messageTimes });
      });
      this.#storeOk();
      if (this.config.prepare_in_background) startPreparing(this.#parts, store, s);
    } catch (error) {
      this.#storeFailed("onTurnComplete", error);
    }
  }

  /** Wait for background work of a session, its scheduled drain included (tests, graceful shutdown). */
  async whenIdle(sessionId?: string): Promise<void> {
    const s = this.#sessions.peek(sessionId);
    if (s?.preparing) await s.preparing;
    if (s) await this.#parts.drain.idle(s);
    await this.#parts.indexing.idle();
    await this.#parts.embeddings?.idle();
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
  override async pruneToolResultsOnly(messages: Message[], options: PruneOptions = {}): Promise<PruneResult> {
    try {
      const { store, s } = await this.#session(options.sessionId);
      return await pruneLargeResults(this.#parts, store, s, messages, this.protectLastN, options.messageTimes);
    } catch (error) {
      this.#storeFailed("pruneToolResultsOnly", error);
      return { messages, pruned: 0 };
    }
  }

  // ---------------------------------------------------------------- tools

  override getToolSchemas(): ToolSchema[] {
    return lcmToolSchemas({ crossConversation: this.config.cross_conversation, semantic: this.#parts.embeddings !== null });
  }

  override async handleToolCall(name: string, args: unknown, options: ToolCallOptions = {}): Promise<string> {
    if (!isLcmTool(name)) return toolError(`Unknown context engine tool: ${name}`);
    try {
      const { store, s } = await this.#session(options.sessionId);
      return await s.locked(async () => {
        // The current turn must be searchable too: ingest what the host shows us first.
        if (options.messages?.length) await ingest(this.#parts, store, s, options.messages);
        return await handleLcmToolCall(store, name, args, {
          conversationId: s.conversationId,
          allowCrossConversation: this.config.cross_conversation,
          embeddings: this.#parts.embeddings,
        });
      });
    } catch (error) {
      return toolError(`${name} failed: ${describeError(error)}`);
    }
  }

  // ---------------------------------------------------------------- lifecycle

  /** Opens the store (an unopenable one is reported here, in plain words) and the session's conversation. */
  override async onSessionStart(sessionId: string, options: SessionStartOptions = {}): Promise<void> {
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
  }

  override async onSessionEnd(sessionId: string, messages: readonly Message[]): Promise<void> {
    const peeked = this.#sessions.peek(sessionId);
    const current = this.#handle.current;
    let opened = peeked && current ? { store: current, s: peeked } : null;
    // A session this process never opened (it restarted since) still has its final list stored: what the
    // host changed after its last turn (its own summary of the history) is kept too.
    if (!opened && messages.length) {
      try {
        opened = await this.#session(sessionId);
      } catch (error) {
        this.#storeFailed("onSessionEnd", error);
        return;
      }
    }
    if (!opened) return;
    const { store, s } = opened;
    try {
      await s.locked(async () => {
        if (messages.length) await ingest(this.#parts, store, s, messages);
      });
    } catch (error) {
      this.#storeFailed("onSessionEnd", error);
    }
    this.#sessions.drop(s);
    await this.applyRetention();
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
    const e = this.#parts.embeddings;
    // Top level, in words, for hosts that show it (`/engine`); the details are under lcm.retrieval.
    const retrieval = e ? `hybrid (words + ${e.model} vectors)${e.status().degraded ? ", degraded to words" : ""}` : "words (BM25)";
    return { ...super.getStatus(), retrieval, lcm: engineStatus(this.#parts, this.#closed) };
  }
}

/** The host's turn identity, when it gave a usable one (a key and the turn's messages). */
function turnIdentity(meta: TurnCompleteMeta): TurnIdentity | null {
  const { turnId, turnMessages, messageIds } = meta;
  if (typeof turnId !== "string" || !turnId || !Array.isArray(turnMessages) || !turnMessages.length) return null;
  const ids = Array.isArray(messageIds) && messageIds.every((id) => id === null || typeof id === "string") ? messageIds : undefined;
  return { key: turnId, turnMessages, ...(ids ? { messageIds: ids } : {}) };
}

/** New message objects for the host: it may set fields on what it gets (cache hints) without touching our caches. */
function fresh(messages: readonly Message[]): Message[] {
  return messages.map((m) => ({ ...m }) as Message);
}
