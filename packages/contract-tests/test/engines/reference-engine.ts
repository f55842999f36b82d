import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import {
  ContextEngine,
  contentText,
  parseToolArguments,
  toolError,
  type ChatModel,
  type CompressOptions,
  type EngineInitContext,
  type Message,
  type SelectContextOptions,
  type SessionStartOptions,
  type ToolCallOptions,
  type ToolSchema,
  type TurnCompleteMeta,
  type Usage,
} from "@context-engine/core";
import { compactConversation, selectWithinBudget } from "./compact.js";

interface Entry {
  role: string;
  text: string;
}

const SearchArgs = z.object({ query: z.string().min(1), limit: z.number().int().positive().max(50).optional() });
const StatsArgs = z.object({});

/** A minimal engine that implements every optional part correctly; the kit's self-test baseline. */
export class ReferenceEngine extends ContextEngine {
  static readonly capabilities = { tools: true, selectContext: true, onTurnComplete: true, persistence: true };

  protected readonly chatModel: ChatModel | undefined;
  protected dataDir: string | undefined;
  /** Transcript text per session, keyed by sessionId. */
  protected readonly sessions = new Map<string, Entry[]>();

  constructor(ctx: EngineInitContext = {}) {
    super();
    this.contextLength = ctx.contextLength ?? 0;
    this.chatModel = ctx.chatModel;
    this.dataDir = ctx.dataDir;
    this.thresholdTokens = Math.floor(this.contextLength * this.thresholdPercent);
  }

  get name(): string {
    return "reference";
  }

  updateFromResponse(usage: Usage): void {
    this.recordUsage(usage);
  }

  shouldCompress(promptTokens?: number): boolean {
    const tokens = promptTokens ?? this.lastPromptTokens;
    return this.thresholdTokens > 0 && tokens >= this.thresholdTokens;
  }

  async compress(messages: Message[], options: CompressOptions = {}): Promise<Message[]> {
    const out = await compactConversation(messages, options, {
      thresholdTokens: this.thresholdTokens,
      protectFirstN: this.protectFirstN,
      protectLastN: this.protectLastN,
      chatModel: this.chatModel,
    });
    if (out.compacted) this.compressionCount++;
    return out.messages;
  }

  protected fileFor(sessionId: string): string | null {
    return this.dataDir ? join(this.dataDir, `reference-${sessionId.replace(/[^a-zA-Z0-9_-]/g, "_")}.json`) : null;
  }

  override onSessionStart(sessionId: string, options: SessionStartOptions = {}): void {
    if (options.dataDir) this.dataDir = options.dataDir;
    const file = this.fileFor(sessionId);
    if (file && existsSync(file) && !this.sessions.has(sessionId)) {
      this.sessions.set(sessionId, JSON.parse(readFileSync(file, "utf8")) as Entry[]);
    }
  }

  override onSessionEnd(sessionId: string, _messages: readonly Message[]): void {
    const file = this.fileFor(sessionId);
    const entries = this.sessions.get(sessionId);
    if (file && entries) writeFileSync(file, JSON.stringify(entries));
  }

  override onTurnComplete(messages: readonly Message[], _usage?: Usage | null, meta: TurnCompleteMeta = {}): void {
    const sessionId = meta.sessionId ?? "default";
    this.sessions.set(
      sessionId,
      messages.map((m) => ({ role: m.role, text: contentText((m as { content?: unknown }).content) })),
    );
  }

  override selectContext(requestMessages: Message[], options: SelectContextOptions = {}): Message[] | null {
    return selectWithinBudget(requestMessages, options.budgetTokens || this.contextLength);
  }

  override getToolSchemas(): ToolSchema[] {
    return [
      {
        name: "reference_search",
        description: "Search this session's earlier messages for a word.",
        parameters: {
          type: "object",
          properties: { query: { type: "string" }, limit: { type: "integer", minimum: 1, maximum: 50 } },
          required: ["query"],
        },
      },
      { name: "reference_stats", description: "How many messages this session has stored.", parameters: { type: "object", properties: {} } },
    ];
  }

  /** What the tools may see for a session: that session's transcript only. */
  protected entriesFor(sessionId: string): Entry[] {
    return this.sessions.get(sessionId) ?? [];
  }

  override handleToolCall(name: string, args: unknown, options: ToolCallOptions = {}): string {
    const entries = this.entriesFor(options.sessionId ?? "default");
    if (name === "reference_search") {
      const parsed = parseToolArguments(name, SearchArgs, args);
      if (!parsed.ok) return parsed.error;
      const q = parsed.data.query.toLowerCase();
      const matches = entries
        .filter((e) => e.text.toLowerCase().includes(q))
        .slice(0, parsed.data.limit ?? 5)
        .map((e) => {
          const at = e.text.toLowerCase().indexOf(q);
          return { role: e.role, text: e.text.slice(Math.max(0, at - 100), at + 200) };
        });
      return JSON.stringify({ query: parsed.data.query, matches });
    }
    if (name === "reference_stats") {
      const parsed = parseToolArguments(name, StatsArgs, args);
      if (!parsed.ok) return parsed.error;
      return JSON.stringify({ messages: entries.length });
    }
    return toolError(`Unknown context engine tool: ${name}`);
  }
}

/** An engine with no optional parts: only the required members, defaults for the rest. */
export class MinimalEngine extends ContextEngine {
  protected readonly chatModel: ChatModel | undefined;
  constructor(ctx: EngineInitContext = {}) {
    super();
    this.contextLength = ctx.contextLength ?? 0;
    this.chatModel = ctx.chatModel;
  }
  get name(): string {
    return "minimal";
  }
  updateFromResponse(usage: Usage): void {
    this.recordUsage(usage);
  }
  shouldCompress(promptTokens?: number): boolean {
    return this.thresholdTokens > 0 && (promptTokens ?? this.lastPromptTokens) >= this.thresholdTokens;
  }
  async compress(messages: Message[], options: CompressOptions = {}): Promise<Message[]> {
    const out = await compactConversation(messages, options, {
      thresholdTokens: this.thresholdTokens,
      protectFirstN: this.protectFirstN,
      protectLastN: this.protectLastN,
      chatModel: this.chatModel,
    });
    if (out.compacted) this.compressionCount++;
    return out.messages;
  }
}
