import { overridesHook, silentLogger } from "@context-engine/core";
import type { EngineFactory, EngineInitContext, Logger, Message, TurnCompleteMeta, Usage } from "@context-engine/core";
import { assembleWithEngine, fitBudget } from "./assemble.js";
import { committedTurn } from "./commit.js";
import { compactSession } from "./compact.js";
import { toOpenAiMessages } from "./convert-to-openai.js";
import { estimateAgentTokens } from "./estimate.js";
import { bounded, guarded } from "./guard.js";
import { isHostInternalSession } from "./host-internal.js";
import { fitHostInternal } from "./internal-fit.js";
import type { OcAgentMessage, OcRuntimeContext, OpenClawContextEngine } from "./openclaw-types.js";
import { SessionEngines } from "./sessions.js";
import type { SessionEntry } from "./sessions.js";
import { trace, traceList, tracing } from "./trace.js";
import { lastAssistantUsage, usageFromOpenClaw } from "./usage.js";
import { modelRefOf, nextWindow } from "./window.js";
import type { ContextWindowResolver, ModelRef } from "./window.js";

export interface OpenClawEngineOptions {
  /** OpenClaw engine id (what `plugins.slots.contextEngine` selects). */
  id: string;
  name?: string;
  version?: string;
  /** Builds one engine per OpenClaw session. */
  factory: EngineFactory;
  /** Passed to the factory for every session (config, dataDir, chatModel, …). */
  init?: EngineInitContext;
  /** Share sessions across engine objects (OpenClaw may build one per run); then `dispose` keeps them. */
  sessions?: SessionEngines;
  /** Deadline for each per-step engine call; a slower engine is skipped for that step. Default 10 s. */
  stepTimeoutMs?: number;
  /** Deadline for `compact`. Default 120 s (OpenClaw bounds it too). */
  compactTimeoutMs?: number;
  logger?: Logger;
  /**
   * The model's context window from OpenClaw's model config (`defineContextEnginePlugin` reads
   * `models.providers.<name>.models[].contextWindow`). Without it the window is taken from the
   * window-sized budgets OpenClaw passes `commitTurn`, `compact` and `bootstrap`, never from the
   * per-call budgets of `assemble`.
   */
  contextWindow?: ContextWindowResolver;
  /**
   * The engine keeps each session's history in a store other processes share (LCM on PostgreSQL):
   * the first `assemble` of a session in a process builds on the engine's stored history (through
   * `compress`, which assembles from the store), so a session continued from another OpenClaw home
   * or after a restart sees it. A function decides per engine.
   */
  historyFromEngine?: boolean | ((engine: SessionEntry["engine"]) => boolean);
}

/**
 * Wrap a context-engine `ContextEngine` factory as an OpenClaw context engine.
 * Declares the durable-turn contract OpenClaw ≥ 2026.8.1 requires, so the
 * host does not fall back to its legacy engine. Every engine call is bounded
 * and validated; on any failure OpenClaw gets its unmodified messages.
 */
/**
 * The session's transcript for `onSessionEnd`: OpenClaw's history after the last commit (or as the turn
 * start gave it). The latest assemble's list may be our own result handed back, a view with the
 * engine's notes in it: an engine that stores what it is given would store a history that never was.
 */
function sessionTranscript(entry: SessionEntry): Message[] {
  const transcript = entry.turnHistory ?? entry.lastHost;
  return transcript ? toOpenAiMessages(transcript).messages : [];
}

export function createOpenClawContextEngine(options: OpenClawEngineOptions): OpenClawContextEngine {
  const logger = options.logger ?? options.init?.logger ?? silentLogger;
  const sessions = options.sessions ?? new SessionEngines(options.factory, { ...options.init, logger });
  const ownsSessions = !options.sessions;
  const stepMs = options.stepTimeoutMs ?? 10_000;
  const compactMs = options.compactTimeoutMs ?? 120_000;
  const historyFromEngine = (entry: SessionEntry) => {
    const choice = options.historyFromEngine;
    if (typeof choice !== "function") return choice === true;
    const decided = guarded("historyFromEngine", logger, () => choice(entry.engine));
    return decided.ok && decided.value === true;
  };

  /** What a call tells about the model: its name, and a budget when the call's budget is the whole window. */
  interface Hint {
    ref?: ModelRef;
    windowBudget?: number | undefined;
  }

  const session = async (sessionId: string, hint: Hint = {}): Promise<SessionEntry> => {
    const entry = sessions.get(sessionId);
    const model = hint.ref?.model ?? entry.model;
    const fromModel = hint.ref && options.contextWindow ? guarded("contextWindow", logger, () => options.contextWindow!(hint.ref!)) : undefined;
    const next = nextWindow({ window: entry.window, source: entry.windowSource }, fromModel?.ok ? fromModel.value : undefined, hint.windowBudget);
    if (!entry.started) {
      entry.started = bounded("onSessionStart", stepMs, logger, () =>
        entry.engine.onSessionStart(sessionId, { platform: "openclaw", ...(model ? { model } : {}), ...(next.window ? { contextLength: next.window } : {}) }),
      ).then(() => undefined);
    }
    await entry.started;
    if (next.window !== entry.window || (model && model !== entry.model)) {
      entry.model = model;
      entry.window = next.window;
      entry.windowSource = next.source;
      if (entry.window) {
        const length = entry.window;
        await bounded("updateModel", stepMs, logger, () => entry.engine.updateModel(entry.model ?? "", length));
      }
    }
    return entry;
  };

  /** `all` gives the finished transcript, converted only when the engine observes turns. */
  const observeTurn = async (entry: SessionEntry, all: () => Message[], usage: Usage | null, meta: TurnCompleteMeta) => {
    if (usage) guarded("updateFromResponse", logger, () => entry.engine.updateFromResponse(usage));
    if (!overridesHook(entry.engine, "onTurnComplete")) return;
    const converted = all();
    await bounded("onTurnComplete", stepMs, logger, () => entry.engine.onTurnComplete(converted, usage, { sessionId: entry.sessionId, ...meta }));
  };

  const windowBudget = (rc: OcRuntimeContext | undefined, explicit?: number) => explicit ?? rc?.tokenBudget;

  return {
    info: {
      id: options.id,
      name: options.name ?? options.id,
      ...(options.version ? { version: options.version } : {}),
      // The engine decides when to compact (shouldCompress in assemble), so the runtime's own auto-compaction stays off.
      ownsCompaction: true,
      transcriptSemantics: { currentTurnFence: "before-current-turn-entry-v1", turnAdvancementIdempotency: "atomic-idempotent-v1" },
    },

    async bootstrap(params) {
      if (isHostInternalSession(params.sessionId, params.sessionKey)) return { bootstrapped: false, reason: "host-internal session" };
      await session(params.sessionId, { ref: modelRefOf(params), windowBudget: windowBudget(params.runtimeContext) });
      return { bootstrapped: true };
    },

    async ingest(params) {
      if (isHostInternalSession(params.sessionId, params.sessionKey)) return { ingested: false };
      const entry = await session(params.sessionId);
      entry.pendingIngest.push(params.message);
      return { ingested: true };
    },

    async ingestBatch(params) {
      const count = Array.isArray(params.messages) ? params.messages.length : 0;
      if (isHostInternalSession(params.sessionId, params.sessionKey)) return { ingestedCount: count };
      const entry = await session(params.sessionId);
      const batch = [...(entry.pendingIngest as OcAgentMessage[]), ...(Array.isArray(params.messages) ? params.messages : [])];
      entry.pendingIngest = [];
      if (!entry.durableHost) await observeTurn(entry, () => toOpenAiMessages(batch).messages, lastAssistantUsage(batch), { isHeartbeat: params.isHeartbeat === true });
      return { ingestedCount: count };
    },

    async afterTurn(params) {
      if (isHostInternalSession(params.sessionId, params.sessionKey)) return;
      const entry = await session(params.sessionId, { ref: modelRefOf(params), windowBudget: windowBudget(params.runtimeContext, params.tokenBudget) });
      const all = Array.isArray(params.messages) ? params.messages : [];
      const usage = usageFromOpenClaw(params.runtimeContext?.promptCache?.lastCallUsage) ?? lastAssistantUsage(all.slice(params.prePromptMessageCount));
      if (entry.durableHost) {
        if (usage) guarded("updateFromResponse", logger, () => entry.engine.updateFromResponse(usage));
        return;
      }
      await observeTurn(entry, () => toOpenAiMessages(all).messages, usage, { isHeartbeat: params.isHeartbeat === true });
    },

    async commitTurn(params) {
      // Memory flush, heartbeat effects and the like are OpenClaw's own runs, not the user's conversation.
      if (isHostInternalSession(params.sessionId, params.sessionKey)) return { status: "committed" };
      const entry = await session(params.sessionId, { ref: modelRefOf(params), windowBudget: windowBudget(params.runtimeContext) });
      entry.durableHost = true;
      const key = String(params.advancementKey);
      // A fast path; engines that keep turn keys (LCM) recognise a re-delivered key after a restart too.
      if (entry.committed.has(key)) return { status: "duplicate" };
      const running = entry.inflight.get(key);
      if (running) return running.then(() => ({ status: "duplicate" as const }));
      const work = (async () => {
        const turn = Array.isArray(params.messages) ? params.messages : [];
        const usage = usageFromOpenClaw(params.runtimeContext?.promptCache?.lastCallUsage) ?? lastAssistantUsage(turn);
        // The host hands over only the accepted turn; engines get it as the turn's messages, keyed by the
        // advancement key, and the finished transcript (history as of the turn-start assemble, plus the turn).
        const history = entry.turnHistory ?? entry.lastHost;
        const committed = committedTurn(key, turn, history, entry.lastPrompt);
        if (tracing) trace("commit", { session: entry.sessionId, key, turn: traceList(committed.meta.turnMessages ?? []), transcript: committed.transcript.length });
        // Until the next turn-start assemble, the history after this turn is the best one known.
        // As handed over (a recovered turn's user text included): what the engine's store now holds after the history.
        entry.turnHistory = [...(history ?? []), ...committed.handed];
        // And the host list a `compact` before the next assemble works on: a compaction's view (from the
        // engine's store, which now holds this turn) then covers this turn too, not just the list before it.
        entry.lastHost = entry.turnHistory;
        entry.lastPrompt = undefined;
        await observeTurn(entry, () => committed.transcript, usage, { ...committed.meta, isHeartbeat: params.isHeartbeat === true });
        entry.committed.add(key);
        return { status: "committed" as const };
      })();
      entry.inflight.set(key, work);
      try {
        return await work;
      } finally {
        entry.inflight.delete(key);
      }
    },

    async assemble(params) {
      const messages = Array.isArray(params.messages) ? params.messages : [];
      if (isHostInternalSession(params.sessionId, params.sessionKey)) {
        const fromModel = options.contextWindow ? guarded("contextWindow", logger, () => options.contextWindow!(modelRefOf(params))) : undefined;
        const budget = fitBudget(params.tokenBudget, fromModel?.ok ? fromModel.value : undefined);
        const fitted = fitHostInternal(messages, budget);
        if (tracing) trace("internal-assemble", { session: params.sessionId, budget, given: messages.length, kept: fitted.length });
        return { messages: fitted, estimatedTokens: estimateAgentTokens(fitted) };
      }
      try {
        const entry = await session(params.sessionId, { ref: modelRefOf(params) });
        return await assembleWithEngine(entry, params, { timeoutMs: stepMs, logger, historyFromEngine: historyFromEngine(entry) });
      } catch (err) {
        logger.warn(`[context-engine/openclaw] assemble failed: ${String(err)}; OpenClaw keeps the unmodified messages`);
        return { messages, estimatedTokens: estimateAgentTokens(messages) };
      }
    },

    async compact(params) {
      if (isHostInternalSession(params.sessionId, params.sessionKey)) return { ok: true, compacted: false, reason: "nothing to compact: a host-internal session" };
      const entry = await session(params.sessionId, { ref: modelRefOf(params), windowBudget: windowBudget(params.runtimeContext, params.tokenBudget) });
      return compactSession(entry, params, compactMs, logger);
    },

    async dispose() {
      if (!ownsSessions) return;
      // All at once, each bounded: hung sessions cost one step deadline in total, not one each.
      await Promise.all(
        sessions.entries().map((entry) =>
          bounded("onSessionEnd", stepMs, logger, () => entry.engine.onSessionEnd(entry.sessionId, sessionTranscript(entry))),
        ),
      );
      sessions.clear();
    },
  };
}
