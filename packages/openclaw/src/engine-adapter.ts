import { defaultTokenCounter, overridesHook, silentLogger } from "@context-engine/core";
import type { EngineFactory, EngineInitContext, Logger, Usage } from "@context-engine/core";
import { adoptView, assembleWithEngine, workingList } from "./assemble.js";
import { toOpenAiMessages } from "./convert-to-openai.js";
import { estimateAgentTokens } from "./estimate.js";
import { acceptMessages, bounded, guarded } from "./guard.js";
import type {
  OcAgentMessage,
  OcCompactParams,
  OcCompactResult,
  OcRuntimeContext,
  OpenClawContextEngine,
} from "./openclaw-types.js";
import { SessionEngines } from "./sessions.js";
import type { SessionEntry } from "./sessions.js";
import { lastAssistantUsage, usageFromOpenClaw } from "./usage.js";

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
}

/**
 * Wrap a context-engine `ContextEngine` factory as an OpenClaw context engine.
 * Declares the durable-turn contract OpenClaw ≥ 2026.8.1 requires, so the
 * host does not fall back to its legacy engine. Every engine call is bounded
 * and validated; on any failure OpenClaw gets its unmodified messages.
 */
export function createOpenClawContextEngine(options: OpenClawEngineOptions): OpenClawContextEngine {
  const logger = options.logger ?? options.init?.logger ?? silentLogger;
  const sessions = options.sessions ?? new SessionEngines(options.factory, { ...options.init, logger });
  const ownsSessions = !options.sessions;
  const stepMs = options.stepTimeoutMs ?? 10_000;
  const compactMs = options.compactTimeoutMs ?? 120_000;

  const session = async (sessionId: string, model?: string, budget?: number): Promise<SessionEntry> => {
    const entry = sessions.get(sessionId);
    if (!entry.started) {
      entry.started = bounded("onSessionStart", stepMs, logger, () =>
        entry.engine.onSessionStart(sessionId, { platform: "openclaw", ...(model ? { model } : {}), ...(budget ? { contextLength: budget } : {}) }),
      ).then(() => undefined);
    }
    await entry.started;
    if ((model && model !== entry.model) || (budget && budget !== entry.budget)) {
      entry.model = model ?? entry.model;
      entry.budget = budget ?? entry.budget;
      if (entry.budget) {
        const length = entry.budget;
        await bounded("updateModel", stepMs, logger, () => entry.engine.updateModel(entry.model ?? "", length));
      }
    }
    return entry;
  };

  const observeTurn = async (entry: SessionEntry, all: () => readonly OcAgentMessage[], usage: Usage | null, meta: Record<string, unknown>) => {
    if (usage) guarded("updateFromResponse", logger, () => entry.engine.updateFromResponse(usage));
    if (!overridesHook(entry.engine, "onTurnComplete")) return;
    const converted = toOpenAiMessages(all()).messages;
    await bounded("onTurnComplete", stepMs, logger, () => entry.engine.onTurnComplete(converted, usage, { sessionId: entry.sessionId, ...meta }));
  };

  const budgetOf = (rc: OcRuntimeContext | undefined, explicit?: number) => explicit ?? rc?.tokenBudget;

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
      await session(params.sessionId, undefined, budgetOf(params.runtimeContext));
      return { bootstrapped: true };
    },

    async ingest(params) {
      const entry = await session(params.sessionId);
      entry.pendingIngest.push(params.message);
      return { ingested: true };
    },

    async ingestBatch(params) {
      const entry = await session(params.sessionId);
      const batch = [...(entry.pendingIngest as OcAgentMessage[]), ...(Array.isArray(params.messages) ? params.messages : [])];
      entry.pendingIngest = [];
      if (!entry.durableHost) await observeTurn(entry, () => batch, lastAssistantUsage(batch), { isHeartbeat: params.isHeartbeat === true });
      return { ingestedCount: Array.isArray(params.messages) ? params.messages.length : 0 };
    },

    async afterTurn(params) {
      const entry = await session(params.sessionId, undefined, budgetOf(params.runtimeContext, params.tokenBudget));
      const all = Array.isArray(params.messages) ? params.messages : [];
      const usage = usageFromOpenClaw(params.runtimeContext?.promptCache?.lastCallUsage) ?? lastAssistantUsage(all.slice(params.prePromptMessageCount));
      if (entry.durableHost) {
        if (usage) guarded("updateFromResponse", logger, () => entry.engine.updateFromResponse(usage));
        return;
      }
      await observeTurn(entry, () => all, usage, { isHeartbeat: params.isHeartbeat === true });
    },

    async commitTurn(params) {
      const entry = await session(params.sessionId, undefined, budgetOf(params.runtimeContext));
      entry.durableHost = true;
      const key = String(params.advancementKey);
      if (entry.committed.has(key)) return { status: "duplicate" };
      const running = entry.inflight.get(key);
      if (running) return running.then(() => ({ status: "duplicate" as const }));
      const work = (async () => {
        const turn = Array.isArray(params.messages) ? params.messages : [];
        const usage = usageFromOpenClaw(params.runtimeContext?.promptCache?.lastCallUsage) ?? lastAssistantUsage(turn);
        // The host hands over only the accepted turn; engines observe the finished transcript
        // (history as of this turn's assemble, fenced before the turn's user entry, plus the turn).
        const transcript = () => (entry.lastHost ? [...entry.lastHost, ...turn] : turn);
        await observeTurn(entry, transcript, usage, { turnId: key, isHeartbeat: params.isHeartbeat === true });
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
      try {
        const entry = await session(params.sessionId, params.model, budgetOf(params.runtimeContext, params.tokenBudget));
        return await assembleWithEngine(entry, params, { timeoutMs: stepMs, logger });
      } catch (err) {
        logger.warn(`[context-engine/openclaw] assemble failed: ${String(err)}; OpenClaw keeps the unmodified messages`);
        const messages = Array.isArray(params.messages) ? params.messages : [];
        return { messages, estimatedTokens: estimateAgentTokens(messages) };
      }
    },

    async compact(params) {
      const entry = await session(params.sessionId, undefined, budgetOf(params.runtimeContext, params.tokenBudget));
      return compactSession(entry, params, compactMs, logger);
    },

    async dispose() {
      if (!ownsSessions) return;
      // All at once, each bounded: hung sessions cost one step deadline in total, not one each.
      await Promise.all(
        sessions.entries().map((entry) =>
          bounded("onSessionEnd", stepMs, logger, () => entry.engine.onSessionEnd(entry.sessionId, entry.lastHost ? toOpenAiMessages(entry.lastHost).messages : [])),
        ),
      );
      sessions.clear();
    },
  };
}

async function compactSession(entry: SessionEntry, params: OcCompactParams, timeoutMs: number, logger: Logger): Promise<OcCompactResult> {
  if (!entry.lastHost || entry.lastHost.length === 0) return { ok: true, compacted: false, reason: "nothing assembled for this session yet" };
  const { working, hostConverted } = workingList(entry, entry.lastHost);
  const tokensBefore = defaultTokenCounter.countMessages(working);
  // The engine's own copy: one that edits it and then throws leaves the view untouched.
  const given = structuredClone(working);
  const outcome = await bounded(
    "compress",
    timeoutMs,
    logger,
    (signal) =>
      entry.engine.compress(given, {
        force: params.force ?? true,
        signal,
        sessionId: entry.sessionId,
        ...(params.customInstructions ? { focusTopic: params.customInstructions } : {}),
        ...(params.currentTokenCount !== undefined ? { currentTokens: params.currentTokenCount } : {}),
      }),
    params.abortSignal,
  );
  if (!outcome.ok) return { ok: false, compacted: false, reason: outcome.reason };
  const checked = acceptMessages(working, outcome.value);
  if (!checked.ok) return { ok: false, compacted: false, reason: `engine returned an invalid conversation: ${checked.reason}` };
  if (outcome.value === given && JSON.stringify(checked.value) === JSON.stringify(working)) return { ok: true, compacted: false, reason: "engine had nothing to compact" };
  adoptView(entry, checked.value, hostConverted);
  return { ok: true, compacted: true, result: { tokensBefore, tokensAfter: defaultTokenCounter.countMessages(checked.value) } };
}
