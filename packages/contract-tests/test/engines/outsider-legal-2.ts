// Legal but unusual engines, written blind (issue 36, second outsider round): each differs from the
// reference engine in a way the contract allows, and must pass the whole kit.
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { contentText, type CompressOptions, type EngineInitContext, type Message, type ToolSchema } from "@context-engine/core";
import { queryArgument, RetrievalEngine, SEARCH_TOOL, SUMMARY_TAG, transcriptOf, WindowSummaryEngine, type CompactionPlan } from "./outsider-2-base.js";

/**
 * Persistent: at a session's end it journals the requests and summaries of the transcript the host
 * hands it (so only committed work), and a search tool reads the journal, also from a new instance.
 */
export class JournalEngine extends WindowSummaryEngine {
  static readonly capabilities = { tools: true, persistence: true };

  protected journalPath(): string | undefined {
    return this.dataDir ? join(this.dataDir, "journal.jsonl") : undefined;
  }

  protected appendJournal(sessionId: string, texts: string[]): void {
    const path = this.journalPath();
    if (!path || texts.length === 0) return;
    mkdirSync(this.dataDir!, { recursive: true });
    appendFileSync(path, texts.map((text) => JSON.stringify({ sessionId, text })).join("\n") + "\n");
  }

  override onSessionEnd(sessionId: string, messages: readonly Message[]): void {
    const worth = messages.filter((m) => m.role === "user").map((m) => contentText(m.content)).filter(Boolean);
    this.appendJournal(sessionId, worth);
  }

  override getToolSchemas(): ToolSchema[] {
    return [SEARCH_TOOL];
  }

  override handleToolCall(name: string, args: unknown): string {
    if (name !== SEARCH_TOOL.name) return JSON.stringify({ error: `Unknown context engine tool: ${name}` });
    const parsed = queryArgument(args);
    if ("error" in parsed) return parsed.error;
    const entries = this.readJournal();
    const words = parsed.query.toLowerCase().split(/\s+/).filter(Boolean);
    const hits = entries.filter((e) => words.some((w) => e.text.toLowerCase().includes(w)));
    // Nothing matches: the latest entries, so the model still sees what earlier sessions were about.
    return JSON.stringify({ results: (hits.length ? hits : entries.slice(-5)).slice(0, 20) });
  }

  protected readJournal(): Array<{ sessionId: string; text: string }> {
    const path = this.journalPath();
    if (!path || !existsSync(path)) return [];
    return readFileSync(path, "utf8")
      .split("\n")
      .filter(Boolean)
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as { sessionId: string; text: string }];
        } catch {
          return [];
        }
      });
  }
}

/** No LLM at all, synchronous: the middle becomes a deterministic digest of its lines. */
export class DigestOnlyEngine extends WindowSummaryEngine {
  constructor(ctx: EngineInitContext = {}) {
    super({ ...ctx, chatModel: undefined });
  }

  override compress(messages: Message[], options: CompressOptions = {}): Message[] {
    if (options.signal?.aborted) return messages;
    if (!options.force && this.thresholdTokens > 0 && JSON.stringify(messages).length / 4 < this.thresholdTokens) return messages;
    const plan = this.plan(messages);
    if (plan.middle.length === 0) return messages;
    const digest = transcriptOf(plan.middle).split("\n").map((line) => line.slice(0, 80)).slice(-40).join("\n");
    this.compressionCount++;
    return this.assemble(plan, digest);
  }
}

/**
 * Iterative summaries cached per session, reused only while the host's transcript still carries them:
 * a pass the host dropped, or another session's summary, never feeds a later summary.
 */
export class CheckedSummaryCacheEngine extends WindowSummaryEngine {
  private readonly summaries = new Map<string, string>();
  private lastInput: Message[] = [];

  override async compress(messages: Message[], options: CompressOptions = {}): Promise<Message[]> {
    this.lastInput = messages;
    return super.compress(messages, options);
  }

  protected override previousSummary(sessionId: string): string | undefined {
    const cached = this.summaries.get(sessionId);
    const carried = cached !== undefined && this.lastInput.some((m) => contentText(m.content) === `${SUMMARY_TAG}\n${cached}`);
    return carried ? cached : undefined;
  }

  protected override commitSummary(sessionId: string, summary: string): void {
    super.commitSummary(sessionId, summary);
    this.summaries.set(sessionId, summary);
  }

  override onSessionEnd(sessionId: string): void {
    this.summaries.delete(sessionId);
  }

  override onSessionReset(): void {
    super.onSessionReset();
    this.summaries.clear();
  }
}

/**
 * Written as a broken engine (`/reset` clears only the counters), judged legal: a host always ends the
 * session (onSessionEnd, which clears it) before onSessionReset, so nothing can leak.
 */
class ResetKeepsSummary extends WindowSummaryEngine {
  private readonly bySession = new Map<string, string>();
  protected override previousSummary(sessionId: string) {
    return this.bySession.get(sessionId);
  }
  protected override commitSummary(sessionId: string, summary: string) {
    super.commitSummary(sessionId, summary);
    this.bySession.set(sessionId, summary);
  }
  override onSessionEnd(sessionId: string) {
    this.bySession.delete(sessionId);
  }
}

/**
 * Written as a broken engine (the summary folded into the system prompt), judged legal: the system
 * prompt keeps its text first, and the built-in compressor itself appends its compaction note there.
 */
class SummaryInSystemPrompt extends WindowSummaryEngine {
  protected override assemble(plan: CompactionPlan, summary: string): Message[] {
    const [system, ...rest] = plan.head;
    if (!system) return super.assemble(plan, summary);
    return [{ ...system, content: `${contentText(system.content)}\n\nEarlier in this conversation: ${summary}` } as Message, ...rest, ...plan.tail];
  }
}

/** A retrieval engine (selectContext and onTurnComplete) that also owns no tools and keeps no files. */
export class RoutingEngine extends RetrievalEngine {}

export interface OutsiderLegalEngine {
  variant: string;
  create: (ctx: EngineInitContext) => WindowSummaryEngine;
}

export const OUTSIDER_LEGAL_ENGINES: OutsiderLegalEngine[] = [
  { variant: "sliding-window summariser (the base of the broken ones)", create: (ctx) => new WindowSummaryEngine(ctx) },
  { variant: "journals committed transcripts, search tool", create: (ctx) => new JournalEngine(ctx) },
  { variant: "synchronous digest, no LLM", create: (ctx) => new DigestOnlyEngine(ctx) },
  { variant: "summary cache checked against the transcript", create: (ctx) => new CheckedSummaryCacheEngine(ctx) },
  { variant: "per-request retrieval and turn indexing", create: (ctx) => new RoutingEngine(ctx) },
  { variant: "per-session summary cleared at session end, not at reset", create: (ctx) => new ResetKeepsSummary(ctx) },
  { variant: "summary folded into the system prompt", create: (ctx) => new SummaryInSystemPrompt(ctx) },
];
