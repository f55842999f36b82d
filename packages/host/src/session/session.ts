import { randomUUID } from "node:crypto";
import { estimateTextTokens } from "@context-engine/core";
import type { ContextEngine, EngineStatus, Message, SessionStartOptions } from "@context-engine/core";
import { cloneMessages } from "../clone.js";
import { inputBudget, requestLimit } from "../request/budget.js";
import { HostError, SessionClosedError } from "../errors.js";
import { promptCacheEnabled } from "../request/cache-breakpoints.js";
import type { HostRuntime } from "../runtime.js";
import { collectEngineTools } from "../tools.js";
import type { FunctionTool } from "../tools.js";
import { callHook, callHookSync } from "./engine-calls.js";
import type { LedgerCompaction, LedgerEntry } from "../ledger/types.js";
import type { PinInfo, PinInput, PinResult, RestoreResult, UnpinResult } from "./ledger-ops.js";
import { OperationQueue } from "./operation-queue.js";
import { SessionLedgerWiring } from "./session-ledger.js";
import { initialMessages, toUserMessage } from "./session-input.js";
import { modelOptionsOf, startOptionsOf, type OpenSessionOptions, type SessionEndReason } from "./session-options.js";
import { compactSession, safeEngineName, type CompactionSessionAccess } from "./session-compaction.js";
import type { LedgerSessionAccess } from "./session-ledger.js";
import { runTurn } from "./turn/run-turn.js";
import type { ManualCompactionResult, SendOptions, SessionStatus, TurnResult, TurnSession } from "./types.js";

export type { OpenSessionOptions, SessionEndReason } from "./session-options.js";

/** One live view of a session for everything that runs on it (turns, passes, the ledger). */
type SessionLive = TurnSession & LedgerSessionAccess & CompactionSessionAccess;

/**
 * One conversation driven through one engine. Operations on a session run
 * one at a time in call order (a `send` while another is running waits for
 * it); different sessions run concurrently, each on its own engine when
 * the host has an engine factory, else on the one shared engine.
 */
export class Session {
  #id: string;
  #model: string;
  #contextLength: number;
  readonly #runtime: HostRuntime;
  readonly #options: OpenSessionOptions;
  #messages: Message[];
  #lastPromptTokens = 0;
  /** Set by a restore, cleared when a compaction commits (see `TurnSession.holdThreshold`). */
  #holdThreshold = false;
  #tools: FunctionTool[] = [];
  #engineToolNames = new Set<string>();
  #toolsTokens = 0;
  #promptCache = false;
  readonly #operations = new OperationQueue();
  #ended = false;
  #turns = 0;
  #compactions = 0;
  readonly #turnNonce = randomUUID().slice(0, 8);
  readonly #onEnded: (session: Session) => void;
  /** The compaction ledger and the pins (see `session-ledger.ts`). */
  readonly #ledger: SessionLedgerWiring;

  /** @internal Use `AgentHost.openSession`. */
  constructor(runtime: HostRuntime, options: OpenSessionOptions, onEnded: (session: Session) => void) {
    this.#runtime = runtime;
    this.#options = options;
    this.#id = options.sessionId ?? randomUUID();
    this.#model = options.model;
    this.#contextLength = options.contextLength ?? 0;
    this.#ledger = new SessionLedgerWiring(runtime, this.#live(), {
      ...(options.ledgerDir ? { ledgerDir: options.ledgerDir } : {}),
      ...(options.pins ? { startPins: options.pins } : {}),
      ...(options.ledgerRedaction ? { redaction: options.ledgerRedaction } : {}),
    });
    // A resumed history may carry an older pins block: the current one replaces it.
    this.#messages = this.#ledger.place(initialMessages(options));
    for (const m of this.#messages) runtime.clock.stampHistory(m);
    this.#onEnded = onEnded;
    this.#promptCache = promptCacheEnabled(runtime.config.promptCache, this.#model);
  }

  get id(): string {
    return this.#id;
  }
  get model(): string {
    return this.#model;
  }
  get contextLength(): number {
    return this.#contextLength;
  }
  /** The persisted conversation (live; read-only for callers). */
  get messages(): readonly Message[] {
    return this.#messages;
  }
  /** The engine serving this session (its own one when the host has an engine factory). */
  get engine(): ContextEngine {
    return this.#runtime.engine;
  }
  get ended(): boolean {
    return this.#ended;
  }
  /** Engine tool names injected into this session's tool list. */
  get engineTools(): string[] {
    return [...this.#engineToolNames];
  }
  /** Every tool the model sees: the agent's, then the engine's. */
  get tools(): readonly FunctionTool[] {
    return this.#tools;
  }
  /** When the last operation started or finished (ms since the epoch). */
  get lastActivity(): number {
    return this.#operations.lastActivity;
  }
  /** Whether an operation (a turn, a compaction, …) is running or queued. */
  get busy(): boolean {
    return this.#operations.busy;
  }

  /** @internal Engine start-up for this session: updateModel, onSessionStart, engine tools. */
  async start(): Promise<void> {
    const r = this.#runtime;
    await callHook(r, this.#id, null, "updateModel", undefined, () =>
      r.engine.updateModel(this.#model, this.#contextLength, this.#modelOptions()),
    );
    await callHook(r, this.#id, null, "onSessionStart", undefined, () => r.engine.onSessionStart(this.#id, this.#startOptions()));
    this.#refreshTools();
    r.bus.emit({
      type: "session.started",
      sessionId: this.#id,
      model: this.#model,
      contextLength: this.#contextLength,
      engine: safeEngineName(r),
      engineTools: this.engineTools,
    });
  }

  /**
   * Run one user turn. `input` is the user's text or a user message. Resolves
   * with the turn's result; provider and engine failures end the turn with a
   * status and a typed error instead of throwing.
   */
  send(input: string | Message, options: SendOptions = {}): Promise<TurnResult> {
    let user: Message;
    try {
      user = toUserMessage(input);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#enqueue(async () => {
      this.#turns++;
      // Unique across processes: engines keep turn ids as idempotency keys, and a resumed session counts from 1 again.
      const turnId = `${this.#id}:${this.#turns}:${this.#turnNonce}`;
      const { result, observe } = await runTurn(this.#live(), user, turnId, options.signal);
      if (observe) this.#operations.observeLater(observe);
      return result;
    });
  }

  /**
   * Resolves once every queued operation, and the last turn's
   * `onTurnComplete` (which runs after `send` resolved), have settled.
   */
  idle(): Promise<void> {
    return this.#operations.idle();
  }

  /** `/compress [focus]`: a forced pass with the optional focus topic. */
  compress(focusTopic?: string | null, options: { signal?: AbortSignal } = {}): Promise<ManualCompactionResult> {
    return this.#enqueue(async () => {
      const r = this.#runtime;
      const has = callHookSync(r, this.#id, null, "hasContentToCompress", true, () => r.engine.hasContentToCompress(cloneMessages(this.#messages)));
      if (has === false) return { status: "nothing_to_compress" } as const;
      const focus = focusTopic?.trim() ? focusTopic.trim() : null;
      return compactSession(this.#live(), { trigger: "manual", force: true, focusTopic: focus, turnId: null }, options.signal);
    });
  }

  /**
   * `/new` and `/reset`: end this conversation (`onSessionEnd`), clear the
   * engine's per-session state (`onSessionReset`) and start a fresh one under
   * a new session id (`onSessionStart`). The system prompt is kept.
   */
  reset(options: { sessionId?: string } = {}): Promise<void> {
    return this.#enqueue(async () => {
      const r = this.#runtime;
      const oldId = this.#id;
      await callHook(r, oldId, null, "onSessionEnd", undefined, () => r.engine.onSessionEnd(oldId, cloneMessages(this.#messages)));
      r.bus.emit({ type: "session.ended", sessionId: oldId, reason: "reset", messageCount: this.#messages.length });
      await callHook(r, oldId, null, "onSessionReset", undefined, () => r.engine.onSessionReset());
      r.hookBreakers.forget(oldId);
      this.#id = options.sessionId ?? randomUUID();
      this.#messages = initialMessages({ ...this.#options, history: [] });
      this.#lastPromptTokens = 0;
      this.#turns = 0;
      this.#compactions = 0;
      this.#holdThreshold = false;
      // Another conversation: its own ledger, and no pins.
      this.#ledger.reopen();
      this.#messages = this.#ledger.place(this.#messages);
      await callHook(r, this.#id, null, "onSessionStart", undefined, () =>
        r.engine.onSessionStart(this.#id, { ...this.#startOptions(), boundaryReason: "reset", oldSessionId: oldId }),
      );
      this.#refreshTools();
      r.bus.emit({ type: "session.reset", sessionId: this.#id, previousSessionId: oldId });
    });
  }

  /**
   * `/model`: switch the model (and window) for the following requests; calls `updateModel`.
   * Refused with `PinsOverCapError` (nothing changes) when the pins exceed the new window's cap.
   */
  switchModel(model: string, contextLength?: number, options: { provider?: string; baseUrl?: string } = {}): Promise<void> {
    if (!model.trim()) return Promise.reject(new HostError("invalid_input", "switchModel: the model name is empty"));
    return this.#enqueue(async () => {
      const r = this.#runtime;
      const overCap = contextLength === undefined ? null : this.#ledger.overCapFor(model.trim(), contextLength);
      if (overCap) throw overCap;
      const previous = this.#model;
      this.#model = model.trim();
      if (contextLength !== undefined) this.#contextLength = contextLength;
      if (options.provider !== undefined) this.#options.provider = options.provider;
      if (options.baseUrl !== undefined) this.#options.baseUrl = options.baseUrl;
      this.#promptCache = promptCacheEnabled(r.config.promptCache, this.#model);
      await callHook(r, this.#id, null, "updateModel", undefined, () =>
        r.engine.updateModel(this.#model, this.#contextLength, this.#modelOptions()),
      );
      // Figures measured against the old model no longer apply ("model switch writes 0").
      this.#lastPromptTokens = 0;
      try {
        r.engine.lastPromptTokens = 0;
      } catch {
        // read-only on an exotic engine
      }
      r.figures.confirm(["lastPromptTokens"]);
      r.bus.emit({ type: "model.switched", sessionId: this.#id, model: this.#model, contextLength: this.#contextLength, previousModel: previous });
    });
  }

  /** Figures for `/status`. */
  status(): SessionStatus {
    const r = this.#runtime;
    const engineStatus = callHookSync<EngineStatus | null>(r, this.#id, null, "getStatus", null, () => r.engine.getStatus());
    return {
      sessionId: this.#id,
      engine: safeEngineName(r),
      model: this.#model,
      contextLength: this.#contextLength,
      messageCount: this.#messages.length,
      estimatedTokens: r.counter.countMessages(this.#messages) + this.#toolsTokens,
      lastPromptTokens: this.#lastPromptTokens,
      turns: this.#turns,
      compactions: this.#compactions,
      engineTools: this.engineTools,
      engineStatus,
    };
  }

  /** A real session boundary: `onSessionEnd(id, messages)`, once. Later calls are no-ops. */
  end(reason: SessionEndReason = "end"): Promise<void> {
    if (this.#ended) return Promise.resolve();
    return this.#enqueue(async () => {
      if (this.#ended) return;
      this.#ended = true;
      const r = this.#runtime;
      await callHook(r, this.#id, null, "onSessionEnd", undefined, () => r.engine.onSessionEnd(this.#id, cloneMessages(this.#messages)));
      r.bus.emit({ type: "session.ended", sessionId: this.#id, reason, messageCount: this.#messages.length });
      r.hookBreakers.forget(this.#id);
      this.#onEnded(this);
    }, true);
  }

  /** Every committed compaction of this session, oldest first (restored ones included; see `ledger()`). */
  compactions(): LedgerCompaction[] {
    return this.#ledger.compactions();
  }

  /** The whole ledger: compactions, restores and pin changes, in order. */
  ledger(): readonly LedgerEntry[] {
    return this.#ledger.entries();
  }

  /** `/undo`: put back what the last compaction still applied removed, when it fits the window. */
  undo(): Promise<RestoreResult> {
    return this.#enqueue(async () => this.#holdAfter(this.#ledger.undo()));
  }

  /** `/restore <id>`: undo compaction `id`; later ones stay applied where they do not overlap it. */
  restore(id: string): Promise<RestoreResult> {
    return this.#enqueue(async () => this.#holdAfter(await this.#ledger.restore(id)));
  }

  /** `/pin`: keep `text` (or message `{ index }`'s text) verbatim in every request from now on. */
  pin(input: PinInput): Promise<PinResult> {
    return this.#enqueue(async () => this.#ledger.pin(input));
  }

  unpin(id: string): Promise<UnpinResult> {
    return this.#enqueue(async () => this.#ledger.unpin(id));
  }

  /** The pins, in the order they sit in the pins block, with their token cost. */
  pins(): PinInfo[] {
    return this.#ledger.pins();
  }

  // ---- internals ---------------------------------------------------------------

  /** A restore that went through holds the threshold off until the next compaction commits. */
  #holdAfter(result: RestoreResult): RestoreResult {
    if (result.status === "restored") this.#holdThreshold = true;
    return result;
  }

  #enqueue<T>(fn: () => Promise<T>, allowWhenEnded = false): Promise<T> {
    return this.#operations.enqueue(fn, () => (this.#ended && !allowWhenEnded ? new SessionClosedError(this.#id) : null));
  }

  #modelOptions() {
    return modelOptionsOf(this.#options);
  }

  #startOptions(): SessionStartOptions {
    return startOptionsOf(this.#options, this.#model, this.#contextLength);
  }

  /** The input budget engines are given as `budgetTokens`. */
  #inputBudget(): number {
    return inputBudget(this.#contextLength, this.#runtime.config.outputReserveTokens, this.#toolsTokens);
  }

  #refreshTools(): void {
    const r = this.#runtime;
    const engineTools = collectEngineTools(r.engine, r.agentTools, r.logger);
    this.#tools = [...r.agentTools, ...engineTools.tools];
    this.#engineToolNames = engineTools.names;
    this.#toolsTokens = this.#tools.length > 0 ? estimateTextTokens(JSON.stringify(this.#tools)) : 0;
  }

  /**
   * The session's state as turns, compaction passes and the ledger wiring see it: live getters over the private
   * fields, and the few ways they may change it.
   */
  #live(): SessionLive {
    const self = this;
    return {
      get id() {
        return self.#id;
      },
      get model() {
        return self.#model;
      },
      get contextLength() {
        return self.#contextLength;
      },
      runtime: self.#runtime,
      get messages() {
        return self.#messages;
      },
      get lastPromptTokens() {
        return self.#lastPromptTokens;
      },
      set lastPromptTokens(v: number) {
        self.#lastPromptTokens = v;
      },
      get tools() {
        return self.#tools;
      },
      get engineToolNames() {
        return self.#engineToolNames;
      },
      get engineTools() {
        return self.engineTools;
      },
      get toolsTokens() {
        return self.#toolsTokens;
      },
      get outputReserveTokens() {
        return self.#contextLength > 0 ? self.#contextLength - requestLimit(self.#contextLength, self.#runtime.config.outputReserveTokens) : 0;
      },
      get requestLimit() {
        return requestLimit(self.#contextLength, self.#runtime.config.outputReserveTokens);
      },
      get inputBudget() {
        return self.#inputBudget();
      },
      get promptCache() {
        return self.#promptCache;
      },
      get holdThreshold() {
        return self.#holdThreshold;
      },
      // What a request carries besides its messages, as the provider client sends it (the ledger's cache figure).
      get request() {
        return { model: self.#model, tools: self.#tools, promptCache: self.#promptCache };
      },
      get ledger() {
        return self.#ledger;
      },
      startOptions: () => self.#startOptions(),
      compact: (request, signal) => compactSession(self.#live(), request, signal),
      replaceMessages: (messages) => {
        self.#messages = self.#ledger.withPins(messages.slice());
      },
      setMessages(messages: Message[]) {
        self.#messages = messages;
        // Measured usage no longer describes the list: estimate until the next response.
        self.#lastPromptTokens = 0;
      },
      adopt(messages: Message[]) {
        self.#messages = messages;
        self.#compactions++;
        self.#holdThreshold = false;
        // "Compression just ran; wait for real usage."
        self.#lastPromptTokens = -1;
      },
    };
  }
}
