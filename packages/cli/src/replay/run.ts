import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { ContextEngine, Logger, Message, TokenCounter } from "@context-engine/core";
import { silentLogger } from "@context-engine/core";
import { AgentHost, type HostConfigInput, type HostEvent, type LedgerCompaction } from "@context-engine/host";
import type { RecordedSession } from "@context-engine/sessions";
import { splitSession } from "@context-engine/sessions";
import { diffCompaction, recordedTimes, replayClock } from "./compaction-detail.js";
import { evidenceRecall } from "./evidence.js";
import { MetricsCollector, type EngineRunMetrics, type RecoverabilityResult } from "./metrics.js";
import type { ReplayObservation } from "./observations.js";
import { RecordedAnswers } from "./recorded-model.js";
import { replayTools } from "./tools.js";
import { persistentStore, replayConversationIds } from "./conversation.js";
import { computeTotals, reportOk, type ReplayReport, type ReplaySessionResult } from "./report.js";

/** Builds a fresh engine for one (session, engine) run, with its own data directory. */
export type EngineFactory = (
  name: string,
  context: { contextLength: number; model: string; dataDir: string; runId: string },
) => Promise<ContextEngine>;

/** Checks, after a run, that a lossless engine can still produce every message it was given. */
export type RecoverabilityCheck = (args: {
  engine: ContextEngine;
  sessionId: string;
  /** Every message the run put into the conversation, in order. */
  original: readonly Message[];
  /** The conversation as it stands at the end of the run. */
  final: readonly Message[];
  /** The last request sent (what the model last saw, after the engine's selection). */
  lastRequest?: readonly Message[];
}) => Promise<RecoverabilityResult | null>;

export interface ReplayProgressEvent {
  type: "request" | "run_started" | "run_finished";
  engine: string;
  session: string;
  metrics?: EngineRunMetrics;
}

export interface RunReplayOptions {
  sessions: readonly RecordedSession[];
  engines: readonly string[];
  createEngine: EngineFactory;
  /** The model window every engine is given. */
  contextLength: number;
  /** Token counter for the recorded model's usage and for prefix shares; use the host's. */
  counter: TokenCounter;
  /** Where engines keep their files; one sub-directory per run. */
  dataDir: string;
  /** Replay at most this many turns per session. */
  maxTurns?: number;
  /** Model name sent with requests; default the one recorded in the session, else "recorded". */
  model?: string;
  hostConfig?: HostConfigInput;
  checkRecoverable?: RecoverabilityCheck;
  /** Whether an engine is lossless (all messages must stay recoverable). */
  isLossless?: (engine: ContextEngine) => boolean;
  logger?: Logger;
  onProgress?: (event: ReplayProgressEvent) => void;
  cliVersion?: string;
  now?: () => Date;
  /**
   * The host session id (the engine's conversation) of run number `runNo`; default one of this
   * replay's own per run (see `replayConversationIds`), so a persistent store never mixes replays.
   */
  conversationId?: (runNo: number) => string;
}

/** Requests one session's replay will make per engine (recorded answers of the turns replayed). */
export function plannedRequests(session: RecordedSession, maxTurns?: number): number {
  const { turns } = splitSession(session.messages);
  return turns.slice(0, maxTurns ?? turns.length).reduce((n, t) => n + Math.max(1, t.steps.filter((m) => m.role === "assistant").length), 0);
}

/**
 * Replay every session through the real host loop with every engine, one
 * run at a time, and fold the host's events into a report.
 */
export async function runReplay(options: RunReplayOptions): Promise<ReplayReport> {
  const results: ReplaySessionResult[] = [];
  const conversationId = options.conversationId ?? replayConversationIds(options.now ? { now: options.now() } : {});
  let runNo = 0;
  for (const session of options.sessions) {
    const { turns } = splitSession(session.messages);
    const replayed = turns.slice(0, options.maxTurns ?? turns.length);
    const runs: EngineRunMetrics[] = [];
    for (const engineName of options.engines) {
      runNo++;
      options.onProgress?.({ type: "run_started", engine: engineName, session: session.id });
      const metrics = await replayOne(options, session, engineName, `run-${runNo}`, conversationId(runNo));
      runs.push(metrics);
      options.onProgress?.({ type: "run_finished", engine: engineName, session: session.id, metrics });
    }
    results.push({
      id: session.id,
      format: session.format,
      source: { ...session.source },
      messages: session.messages.length,
      turns: replayed.length,
      ...(session.repairs?.length ? { repairs: [...session.repairs] } : {}),
      runs,
    });
  }
  const engines = [...options.engines];
  return {
    schema: "context-engine/replay-report@1",
    generatedAt: (options.now?.() ?? new Date()).toISOString(),
    cli: { version: options.cliVersion ?? "0.0.0" },
    contextLength: options.contextLength,
    engines,
    sessions: results,
    totals: computeTotals(engines, results),
    ok: reportOk(results),
  };
}

async function replayOne(options: RunReplayOptions, session: RecordedSession, engineName: string, runId: string, sessionId: string): Promise<EngineRunMetrics> {
  const logger = options.logger ?? silentLogger;
  const started = performance.now();
  const { preamble, turns } = splitSession(session.messages);
  const replayed = turns.slice(0, options.maxTurns ?? turns.length);
  const model = options.model ?? recordedModel(session) ?? "recorded";
  const dataDir = join(options.dataDir, runId);
  mkdirSync(dataDir, { recursive: true });
  const collector = new MetricsCollector({ contextLength: options.contextLength, countMessage: (m) => options.counter.countMessage(m) });

  let engine: ContextEngine;
  try {
    engine = await options.createEngine(engineName, { contextLength: options.contextLength, model, dataDir, runId });
  } catch (error) {
    collector.errors.push(`the engine could not be created: ${message(error)}`);
    return collector.finish({ engine: engineName, sessionId: session.id, thresholdTokens: null, lossless: false, recoverability: null, wallMs: 0 });
  }

  const answers = new RecordedAnswers({ counter: options.counter, model });
  let turn = 0;
  const observe = (obs: ReplayObservation) => collector.observe(obs);
  let lastRequest: readonly Message[] = [];
  // The session's list before a compaction: diffed with the list after it for the report.
  let liveSession: { readonly messages: readonly Message[]; compactions(): LedgerCompaction[] } | null = null;
  let beforeCompaction: readonly Message[] | null = null;
  // Summaries are dated by when the recording says their messages were said, not by the replay's clock.
  const timeOf = recordedTimes(session.messages, session.times);
  const onEvent = (event: HostEvent) => {
    if (event.type === "provider.request") lastRequest = event.messages;
    if (event.type === "compaction.started") beforeCompaction = liveSession ? liveSession.messages.slice() : null;
    const obs = toObservation(event, turn);
    if (obs?.type === "compaction" && event.type === "compaction.committed" && beforeCompaction && liveSession) {
      obs.detail = diffCompaction(beforeCompaction, liveSession.messages, (m) => options.counter.countMessage(m), timeOf);
    }
    if (obs?.type === "compaction" && event.type === "compaction.committed" && liveSession) {
      const entry = liveSession.compactions().find((e) => e.id === event.ledgerId);
      if (entry) obs.ledger = { id: entry.id, engine: entry.engine, focusTopic: entry.focusTopic, removed: entry.removed.length, inserted: entry.inserted.length, cache: entry.cache };
    }
    if (event.type.startsWith("compaction.") && event.type !== "compaction.started") beforeCompaction = null;
    if (obs) observe(obs);
    if (event.type === "provider.request") options.onProgress?.({ type: "request", engine: engineName, session: session.id });
  };
  const { tools, notes: toolNotes } = replayTools(session.tools);
  collector.notes.push(...toolNotes);
  const longestTurn = Math.max(1, ...replayed.map((t) => t.steps.filter((m) => m.role === "assistant").length));
  const host = new AgentHost({
    engine,
    chatModel: answers,
    tools: tools as never,
    executeTool: (call) => answers.toolResult(call.id, call.name),
    config: {
      // Recorded turns can be long agent loops; never cut them short.
      maxIterations: longestTurn + 5,
      maxRetries: 0,
      ...options.hostConfig,
    },
    logger,
    onEvent,
    tokenCounter: options.counter,
    // The engines store and date messages by the recording's times, not the replay's clock.
    messageTime: replayClock(timeOf, session.times),
  });

  // What the conversation received, in order: the basis of the lossless check.
  const original: Message[] = [...preamble];
  let unused = 0;
  let final: readonly Message[] = [];
  try {
    const live = await host.openSession({ sessionId, model, contextLength: options.contextLength, history: preamble, dataDir, platform: "replay" });
    liveSession = live;
    for (const [index, t] of replayed.entries()) {
      turn = index;
      answers.startTurn(t.steps);
      const result = await live.send(t.user);
      original.push(...result.newMessages);
      unused += answers.unusedAnswers;
      if (result.status !== "completed") {
        collector.errors.push(`turn ${index + 1} ended ${result.status} (${result.exitReason})${result.error ? `: ${result.error.message}` : ""}`);
        if (result.exitReason === "context_budget_exceeded") continue;
      }
    }
    // The last turn's onTurnComplete runs after its answer: let it land before measuring.
    await live.idle();
    final = live.messages.slice();
    if (options.isLossless?.(engine) && options.checkRecoverable) {
      try {
        const rec = await options.checkRecoverable({ engine, sessionId: live.id, original, final, lastRequest });
        if (rec) return finishRun(rec);
      } catch (error) {
        collector.errors.push(`the recoverability check failed: ${message(error)}`);
      }
    }
    return finishRun(null);
  } finally {
    await host.close().catch((error: unknown) => logger.warn("closing the replay host failed", { error: message(error) }));
    await closeEngine(engine, logger);
  }

  function finishRun(recoverability: RecoverabilityResult | null): EngineRunMetrics {
    if (unused > 0) collector.notes.push(`${unused} recorded answer(s) not replayed: the host ended a turn at an earlier final answer`);
    if (answers.synthesized > 0) collector.notes.push(`${answers.synthesized} closing answer(s) synthesised where the recording ends on tool results`);
    if (answers.unanswered > 0) collector.notes.push(`${answers.unanswered} placeholder answer(s) for user messages the recording never answered`);
    if (answers.missingResults > 0) collector.notes.push(`${answers.missingResults} tool call(s) had no recorded result`);
    const lossless = options.isLossless?.(engine) ?? false;
    // The full list of lost messages only feeds the evidence figure; the report keeps the first few.
    const { lost, ...kept } = recoverability ?? {};
    const evidence = evidenceRecall(session, original, [...final, ...lastRequest], recoverability ? new Set(lost ?? []) : null);
    recoverability = recoverability ? (kept as RecoverabilityResult) : null;
    const metrics = collector.finish({
      engine: engineName,
      sessionId: session.id,
      thresholdTokens: Number.isFinite(engine.thresholdTokens) && engine.thresholdTokens > 0 ? engine.thresholdTokens : null,
      lossless,
      recoverability,
      evidence,
      wallMs: performance.now() - started,
    });
    const store = persistentStore(engine, dataDir);
    return store ? { ...metrics, conversation: { id: sessionId, store } } : metrics;
  }
}

/** Map a host event to what the metrics need; null for events they ignore. */
export function toObservation(event: HostEvent, turn: number): ReplayObservation | null {
  switch (event.type) {
    case "provider.request":
      return { type: "request", turn, messages: event.messages, tokens: event.estimatedTokens, selection: event.selection };
    case "tool_results.pruned":
      return { type: "pruned", turn, pruned: event.pruned, beforeTokens: event.tokensBefore, afterTokens: event.tokensAfter };
    case "request.over_budget":
      return { type: "refused", turn, tokens: event.estimatedTokens };
    case "compaction.committed":
      return {
        type: "compaction",
        turn,
        outcome: "committed",
        durationMs: event.durationMs,
        beforeTokens: event.tokensBefore,
        afterTokens: event.tokensAfter,
        trigger: event.trigger,
      };
    case "compaction.unchanged":
      return { type: "compaction", turn, outcome: "unchanged", durationMs: event.durationMs, beforeTokens: event.tokensBefore, trigger: event.trigger };
    case "compaction.timed_out":
      return { type: "compaction", turn, outcome: "timed_out", durationMs: event.durationMs, beforeTokens: event.tokensBefore, trigger: event.trigger, reason: `timed out after ${event.timeoutSeconds}s` };
    case "compaction.failed":
      return { type: "compaction", turn, outcome: "failed", durationMs: event.durationMs, beforeTokens: event.tokensBefore, trigger: event.trigger, reason: event.error };
    case "selection.applied":
      return { type: "selection", turn, applied: true };
    case "selection.ignored":
      // A null return is the engine saying "no change", not a rejected selection.
      if (event.reason.startsWith("returned nothing")) return null;
      return { type: "selection", turn, applied: false, reason: event.reason };
    case "engine_tool.called":
      return { type: "engine_tool", turn, name: event.name, ok: event.ok };
    case "turn.completed":
      return { type: "turn_completed", turn };
    case "hook.failed":
      return { type: "engine_error", turn, message: `engine hook ${event.hook} threw: ${event.error}` };
    case "compaction.blocked":
      return { type: "warning", turn, message: `compaction blocked: ${event.reason}` };
    default:
      return null;
  }
}

function recordedModel(session: RecordedSession): string | null {
  const m = session.meta?.model;
  return typeof m === "string" && m.trim() ? m.trim() : null;
}

/** Engines holding files or connections may expose close(); call it so temp dirs can be removed. */
async function closeEngine(engine: ContextEngine, logger: Logger): Promise<void> {
  const close = (engine as { close?: unknown }).close;
  if (typeof close !== "function") return;
  try {
    await close.call(engine);
  } catch (error) {
    logger.warn("closing the engine failed", { engine: engine.name, error: message(error) });
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
