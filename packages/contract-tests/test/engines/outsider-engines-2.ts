// Broken engines of the second outsider round (issue 36), written blind: from the contract, the Hermes
// behaviour notes and core's README, without reading the kit's source or its other broken engines.
// Each is a plausible engine (a sliding-window summariser, a journal, a retrieval selector) with ONE
// rule broken subtly. `caughtBy` was filled in after the first run: the kit checks of that rule that fail.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { contentText, raceAbort, type CompressOptions, type EngineInitContext, type EngineStatus, type Message, type SelectContextOptions, type TurnCompleteMeta, type Usage, type UpdateModelOptions } from "@context-engine/core";
import { RetrievalEngine, WindowSummaryEngine } from "./outsider-2-base.js";
import { JournalEngine } from "./outsider-legal-2.js";

export type OutsiderRule =
  | "discarded-pass"
  | "session-state"
  | "input-mutation"
  | "tool-pairs"
  | "selection"
  | "budget"
  | "usage"
  | "threshold"
  | "status"
  | "tools"
  | "lifecycle";

export interface OutsiderEngine2 {
  defect: string;
  rule: OutsiderRule;
  /** Kit check-name prefixes ("domain > check") of the broken rule; any one failing counts as caught. */
  caughtBy: string[];
  /**
   * The kit before this round's checks: "caught" or "missed". "late" marks the two engines written after
   * reading the kit's source (not blind), so they do not count in the blind before/after figures.
   */
  firstRun: "caught" | "missed" | "late";
  create: (ctx: EngineInitContext) => WindowSummaryEngine;
}

// --- session-state: per-conversation state on an instance the host may share across sessions ---

/** The Hermes-style `_previous_summary`, kept on the instance and folded into the next summary. */
class InstanceIterativeSummary extends WindowSummaryEngine {
  private previous: string | undefined;
  protected override previousSummary() {
    return this.previous;
  }
  protected override commitSummary(sessionId: string, summary: string) {
    super.commitSummary(sessionId, summary);
    this.previous = summary;
  }
  override onSessionEnd() {
    this.previous = undefined;
  }
}

/** Keys its running summary by the conversation's system prompt ("the conversation's identity"). */
class SummaryBySystemPrompt extends WindowSummaryEngine {
  private readonly bySystem = new Map<string, string>();
  private key = "";
  override async compress(messages: Message[], options = {}) {
    this.key = messages[0]?.role === "system" ? contentText(messages[0].content) : "";
    return super.compress(messages, options);
  }
  protected override previousSummary() {
    return this.bySystem.get(this.key);
  }
  protected override commitSummary(sessionId: string, summary: string) {
    super.commitSummary(sessionId, summary);
    this.bySystem.set(this.key, summary);
  }
}

/** A retrieval engine whose index of finished turns is one list for the instance, not one per session. */
class SharedTurnIndex extends RetrievalEngine {
  private readonly index: Message[] = [];
  override onTurnComplete(messages: readonly Message[], usage?: Usage | null, meta?: TurnCompleteMeta) {
    super.onTurnComplete(messages, usage, meta);
    for (const m of meta?.turnMessages ?? messages) {
      if ((m.role === "user" || m.role === "assistant") && contentText(m.content) && !this.index.some((x) => contentText(x.content) === contentText(m.content))) this.index.push(structuredClone(m));
    }
  }
  override selectContext(requestMessages: Message[], options: SelectContextOptions = {}) {
    const { head, current } = this.blocksOf(requestMessages, options.incomingMessage);
    const seen = new Set(requestMessages.map((m) => contentText(m.content)));
    const recalled = this.index.filter((m) => !seen.has(contentText(m.content)) && m.role === "user").slice(-3);
    if (recalled.length === 0) return super.selectContext(requestMessages, options);
    return [...head, { role: "user" as const, content: `Recalled from earlier turns:\n${recalled.map((m) => contentText(m.content)).join("\n")}` }, ...current];
  }
}

/** Keeps selections stable for the prompt cache by reusing the last one for a request of the same shape. */
class SelectionCacheByShape extends RetrievalEngine {
  private readonly cache = new Map<string, Message[] | null>();
  override selectContext(requestMessages: Message[], options: SelectContextOptions = {}) {
    const shape = `${requestMessages.map((m) => m.role[0]).join("")}:${options.budgetTokens ?? 0}`;
    if (!this.cache.has(shape)) this.cache.set(shape, super.selectContext(requestMessages, options));
    return this.cache.get(shape) ?? null;
  }
}

// --- discarded-pass: durable state published from a pass the host may still discard ---

/** Crash safety: writes each summary to dataDir as soon as the model answers, before the abort check. */
class SummaryFileOnAnswer extends JournalEngine {
  protected override onSummaryReady(sessionId: string, summary: string) {
    if (!this.dataDir) return;
    mkdirSync(this.dataDir, { recursive: true });
    writeFileSync(join(this.dataDir, `summary-${sessionId.replace(/[^\w-]/g, "_")}.md`), summary);
  }
}

/**
 * Returns as soon as the host aborts (the signal is raced), but lets the model call run on and caches
 * its answer to dataDir when it arrives, so a retry of the same pass is cheap.
 */
class DetachedSummaryCache extends JournalEngine {
  protected override summarise(middle: Message[], previous: string | undefined, focus: string | undefined, signal?: AbortSignal) {
    const work = super.summarise(middle, previous, focus);
    void work.then((summary) => {
      if (!this.dataDir) return;
      mkdirSync(this.dataDir, { recursive: true });
      writeFileSync(join(this.dataDir, "summary-cache.md"), summary);
    });
    return signal ? raceAbort(work, signal).catch(() => "") : work;
  }
}

/** Buffers each summary as it arrives and journals the buffer with the transcript at session end. */
class BufferedSummariesFlushedAtEnd extends JournalEngine {
  private readonly pending = new Map<string, string[]>();
  protected override onSummaryReady(sessionId: string, summary: string) {
    this.pending.set(sessionId, [...(this.pending.get(sessionId) ?? []), summary]);
  }
  override onSessionEnd(sessionId: string, messages: readonly Message[]) {
    super.onSessionEnd(sessionId, messages);
    this.appendJournal(sessionId, this.pending.get(sessionId) ?? []);
    this.pending.delete(sessionId);
  }
}

/** Buffers each summary as it arrives and journals the buffer when the turn completes. */
class SummariesFlushedAtTurnEnd extends JournalEngine {
  private readonly pending: string[] = [];
  protected override onSummaryReady(_sessionId: string, summary: string) {
    this.pending.push(summary);
  }
  override onTurnComplete(_messages: readonly Message[], _usage?: Usage | null, meta?: TurnCompleteMeta) {
    this.appendJournal(meta?.sessionId ?? "default", this.pending.splice(0));
  }
}

/** Counts the pass when it starts, so an aborted pass still raises compressionCount. */
class CountsPassAtStart extends WindowSummaryEngine {
  protected override beforeSummary() {
    this.compressionCount++;
  }
  protected override commitSummary() {}
}

/** Starts a cooldown when the summary arrives, before it checks whether the pass was aborted. */
class CooldownFromLateAnswer extends WindowSummaryEngine {
  private cooldownUntil = 0;
  protected override onSummaryReady() {
    this.cooldownUntil = Date.now() + 60_000;
  }
  override shouldCompress(promptTokens?: number) {
    return Date.now() >= this.cooldownUntil && super.shouldCompress(promptTokens);
  }
  override async compress(messages: Message[], options: CompressOptions = {}) {
    if (!options.force && Date.now() < this.cooldownUntil) return messages;
    return super.compress(messages, options);
  }
}

// --- input mutation, tool pairs ---

/** Normalises the finished turn in place before indexing it (trims text, flattens content parts). */
class TurnNormalisedInPlace extends RetrievalEngine {
  override onTurnComplete(messages: readonly Message[], usage?: Usage | null, meta?: TurnCompleteMeta) {
    for (const m of messages as Message[]) {
      if (Array.isArray(m.content)) (m as { content: unknown }).content = contentText(m.content);
      else if (typeof m.content === "string") (m as { content: string }).content = m.content.trim();
    }
    super.onTurnComplete(messages, usage, meta);
  }
}

/** Walks the cut back over one tool result only: a parallel call's other results are left orphaned. */
class OneStepToolAlign extends WindowSummaryEngine {
  protected override alignTailStart(messages: Message[], start: number, headLen: number) {
    return start > headLen && messages[start]?.role === "tool" ? start - 1 : start;
  }
}

// --- selection ---

/** Builds its selection from the turns alone: the system prompt is not carried over. */
class SelectionWithoutSystem extends RetrievalEngine {
  protected override selectionHead() {
    return [];
  }
}

/** Keeps the three best earlier turns whatever the budget says. */
class SelectionFixedTopThree extends RetrievalEngine {
  override selectContext(requestMessages: Message[], options: SelectContextOptions = {}) {
    const { head, blocks, current } = this.blocksOf(requestMessages, options.incomingMessage);
    if (blocks.length <= 3) return null;
    const top = [...blocks].sort((a, b) => b.score - a.score || b.start - a.start).slice(0, 3).sort((a, b) => a.start - b.start);
    return [...head, ...top.flatMap((b) => b.messages), ...current];
  }
}

// --- usage, threshold, status ---

/** Adds cached prompt tokens to prompt_tokens (they are already in it). */
class CountsCacheTwice extends WindowSummaryEngine {
  override updateFromResponse(usage: Usage) {
    this.recordUsage(usage);
    this.lastPromptTokens = usage.prompt_tokens + (usage.cache_read_tokens ?? 0);
  }
}

/** Its own updateModel honours modelThresholds with the first substring match. */
class FirstMatchThresholds extends WindowSummaryEngine {
  private configured: number | undefined;
  override updateModel(model: string, contextLength: number, _options: UpdateModelOptions = {}) {
    this.configured ??= this.thresholdPercent;
    this.contextLength = contextLength;
    const key = Object.keys(this.modelThresholds ?? {}).find((k) => model.includes(k));
    this.thresholdPercent = key ? this.modelThresholds[key]! : this.configured;
    this.thresholdTokens = Math.floor(contextLength * this.thresholdPercent);
  }
}

/** Status computed when usage or the model changes, not when a compaction commits. */
class StatusOnUsageOnly extends WindowSummaryEngine {
  private status: EngineStatus | undefined;
  override updateFromResponse(usage: Usage) {
    super.updateFromResponse(usage);
    this.status = super.getStatus();
  }
  override updateModel(model: string, contextLength: number, options?: UpdateModelOptions) {
    super.updateModel(model, contextLength, options);
    this.status = super.getStatus();
  }
  override getStatus(): EngineStatus {
    return this.status ?? super.getStatus();
  }
}

// --- tools, lifecycle ---

/** The schema was renamed to journal_search; the handler still answers the old name. */
class RenamedToolHandler extends JournalEngine {
  override handleToolCall(name: string, args: unknown) {
    return super.handleToolCall(name === "search_journal" ? "journal_search" : `${name}#old`, args);
  }
}

/** Treats onSessionEnd as disposal: drops its model, and later passes only trim without summary. */
class EndDisposes extends WindowSummaryEngine {
  private closed = false;
  override onSessionEnd() {
    this.closed = true;
    this.llm = undefined;
  }
  override async compress(messages: Message[], options = {}) {
    return this.closed ? messages : super.compress(messages, options);
  }
}

/** onSessionStart of a compaction boundary loads the old session's state and rejects when it has none. */
class BoundaryStartRejects extends WindowSummaryEngine {
  private readonly started = new Set<string>();
  override async onSessionStart(sessionId: string, options: { oldSessionId?: string; boundaryReason?: string } = {}) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (options.boundaryReason && options.oldSessionId && !this.started.has(options.oldSessionId)) {
      throw new Error(`no state for session ${options.oldSessionId}`);
    }
    this.started.add(sessionId);
  }
  override onSessionEnd(sessionId: string) {
    this.started.delete(sessionId);
  }
}

const make = (E: new (ctx: EngineInitContext) => WindowSummaryEngine) => (ctx: EngineInitContext) => new E(ctx);

const ABORTED = "compress > an aborted pass";
const DISCARDED = "compress > a discarded pass";

export const OUTSIDER_ENGINES_2: OutsiderEngine2[] = [
  { defect: "outsider2-instance-iterative-summary", rule: "session-state", caughtBy: ["concurrency > ", "compress > a completed pass the host drops"], firstRun: "caught", create: make(InstanceIterativeSummary) },
  { defect: "outsider2-summary-by-system-prompt", rule: "session-state", caughtBy: ["concurrency > ", "compress > a completed pass the host drops"], firstRun: "caught", create: make(SummaryBySystemPrompt) },
  { defect: "outsider2-shared-turn-index", rule: "session-state", caughtBy: ["concurrency > "], firstRun: "late", create: make(SharedTurnIndex) },
  { defect: "outsider2-selection-cache-by-shape", rule: "session-state", caughtBy: ["concurrency > "], firstRun: "late", create: make(SelectionCacheByShape) },
  { defect: "outsider2-summary-file-on-answer", rule: "discarded-pass", caughtBy: [ABORTED, DISCARDED], firstRun: "caught", create: make(SummaryFileOnAnswer) },
  { defect: "outsider2-detached-summary-cache", rule: "discarded-pass", caughtBy: [ABORTED, DISCARDED], firstRun: "late", create: make(DetachedSummaryCache) },
  { defect: "outsider2-buffered-summaries-flushed", rule: "discarded-pass", caughtBy: [ABORTED, DISCARDED], firstRun: "caught", create: make(BufferedSummariesFlushedAtEnd) },
  { defect: "outsider2-flushed-at-turn-end", rule: "discarded-pass", caughtBy: [DISCARDED], firstRun: "late", create: make(SummariesFlushedAtTurnEnd) },
  { defect: "outsider2-counts-pass-at-start", rule: "discarded-pass", caughtBy: [ABORTED], firstRun: "caught", create: make(CountsPassAtStart) },
  { defect: "outsider2-cooldown-from-late-answer", rule: "discarded-pass", caughtBy: [ABORTED], firstRun: "late", create: make(CooldownFromLateAnswer) },
  { defect: "outsider2-turn-normalised-in-place", rule: "input-mutation", caughtBy: ["onTurnComplete > does not mutate", "onTurnComplete > never changes"], firstRun: "caught", create: make(TurnNormalisedInPlace) },
  { defect: "outsider2-one-step-tool-align", rule: "tool-pairs", caughtBy: ["compress > keeps tool calls and results together", "compress > returns a valid OpenAI-format"], firstRun: "missed", create: make(OneStepToolAlign) },
  { defect: "outsider2-selection-without-system", rule: "selection", caughtBy: ["selectContext > returns selections the host can use"], firstRun: "missed", create: make(SelectionWithoutSystem) },
  { defect: "outsider2-selection-fixed-top-three", rule: "budget", caughtBy: ["selectContext > returns selections the host can use"], firstRun: "missed", create: make(SelectionFixedTopThree) },
  { defect: "outsider2-counts-cache-twice", rule: "usage", caughtBy: ["usage tracking > ", "reset and status > updateFromResponse reads prompt_tokens"], firstRun: "caught", create: make(CountsCacheTwice) },
  { defect: "outsider2-first-match-thresholds", rule: "threshold", caughtBy: ["threshold > modelThresholds"], firstRun: "caught", create: make(FirstMatchThresholds) },
  { defect: "outsider2-status-on-usage-only", rule: "status", caughtBy: ["reset and status > getStatus"], firstRun: "caught", create: make(StatusOnUsageOnly) },
  { defect: "outsider2-renamed-tool-handler", rule: "tools", caughtBy: ["tools > handleToolCall answers every name"], firstRun: "caught", create: make(RenamedToolHandler) },
  { defect: "outsider2-end-disposes", rule: "lifecycle", caughtBy: ["lifecycle > "], firstRun: "missed", create: make(EndDisposes) },
  { defect: "outsider2-boundary-start-rejects", rule: "lifecycle", caughtBy: ["lifecycle > survives the mid-session boundary"], firstRun: "caught", create: make(BoundaryStartRejects) },
];
