// Engines written blind (issue 36, second outsider round): from the contract and core's README only,
// without reading the kit's source. This file holds two correct engines an outside author might write;
// outsider-engines-2.ts breaks one rule in each subclass, outsider-legal-2.ts holds unusual legal ones.
import {
  ContextEngine,
  contentText,
  toolCallsOf,
  toolError,
  type Awaitable,
  type ChatModel,
  type CompressOptions,
  type EngineInitContext,
  type Message,
  type SelectContextOptions,
  type ToolSchema,
  type TurnCompleteMeta,
  type Usage,
} from "@context-engine/core";

export const SUMMARY_TAG = "[summary of the earlier conversation]";

/** Rough size of a list: about four characters a token. */
export function roughTokens(messages: readonly Message[]): number {
  let chars = 0;
  for (const m of messages) chars += JSON.stringify(m).length;
  return Math.ceil(chars / 4);
}

/** One line per message, for a summary prompt or a fallback digest. */
export function transcriptOf(messages: readonly Message[]): string {
  return messages
    .map((m) => {
      const calls = toolCallsOf(m).map((c) => `${c.function.name}(${c.function.arguments})`);
      return `${m.role}: ${contentText(m.content)}${calls.length ? ` [calls ${calls.join(", ")}]` : ""}`;
    })
    .join("\n")
    .slice(0, 16_000);
}

export interface CompactionPlan {
  head: Message[];
  middle: Message[];
  tail: Message[];
}

/**
 * A sliding-window summariser: keeps the leading system messages and a tail of recent messages (from
 * the latest user request at the latest, never starting on a tool result), summarises the middle with
 * the chat model, and falls back to a plain digest. Iterative: an earlier summary is in the middle.
 */
export class WindowSummaryEngine extends ContextEngine {
  protected llm: ChatModel | undefined;
  protected readonly dataDir: string | undefined;

  constructor(ctx: EngineInitContext = {}) {
    super();
    this.llm = ctx.chatModel;
    this.dataDir = ctx.dataDir;
    if (ctx.contextLength) this.updateModel(ctx.model ?? "unknown", ctx.contextLength);
  }

  get name(): string {
    return "reference";
  }

  updateFromResponse(usage: Usage): void {
    this.recordUsage(usage);
  }

  shouldCompress(promptTokens?: number): boolean {
    const tokens = promptTokens ?? this.lastPromptTokens;
    return this.thresholdTokens > 0 && tokens > 0 && tokens >= this.thresholdTokens;
  }

  compress(messages: Message[], options: CompressOptions = {}): Awaitable<Message[]> {
    return this.runPass(messages, options);
  }

  protected async runPass(messages: Message[], options: CompressOptions): Promise<Message[]> {
    const { signal, force, focusTopic } = options;
    const sessionId = options.sessionId ?? "default";
    if (signal?.aborted) return messages;
    if (!force && this.thresholdTokens > 0 && roughTokens(messages) < this.thresholdTokens) return messages;
    const plan = this.plan(messages);
    if (plan.middle.length === 0) return messages;
    this.beforeSummary(sessionId);
    const summary = await this.summarise(plan.middle, this.previousSummary(sessionId), focusTopic, signal);
    this.onSummaryReady(sessionId, summary);
    if (signal?.aborted) return messages;
    this.commitSummary(sessionId, summary);
    return this.assemble(plan, summary);
  }

  /** Split the list: leading system messages, the middle to summarise, the tail kept verbatim. */
  protected plan(messages: Message[]): CompactionPlan {
    let headLen = 0;
    while (headLen < messages.length && (messages[headLen]!.role === "system" || messages[headLen]!.role === "developer")) headLen++;
    let start = Math.max(headLen, messages.length - this.protectLastN);
    for (let i = messages.length - 1; i >= headLen; i--) {
      if (messages[i]!.role === "user") {
        start = Math.min(start, i);
        break;
      }
    }
    start = this.alignTailStart(messages, start, headLen);
    return { head: messages.slice(0, headLen), middle: messages.slice(headLen, start), tail: messages.slice(start) };
  }

  /** Move the cut back over tool results so the tail never starts with a result whose call is summarised. */
  protected alignTailStart(messages: Message[], start: number, headLen: number): number {
    while (start > headLen && messages[start]?.role === "tool") start--;
    return start;
  }

  protected assemble(plan: CompactionPlan, summary: string): Message[] {
    return [...plan.head, { role: "user", content: `${SUMMARY_TAG}\n${summary}` }, ...plan.tail];
  }

  protected async summarise(middle: Message[], previous: string | undefined, focus: string | undefined, signal?: AbortSignal): Promise<string> {
    const fallback = `${middle.length} earlier messages were condensed. ${transcriptOf(middle).slice(0, 600)}`;
    if (!this.llm) return fallback;
    const prompt = [
      previous ? `Previous summary:\n${previous}\n` : "",
      focus ? `Focus on: ${focus}\n` : "",
      `Conversation:\n${transcriptOf(middle)}`,
    ].join("");
    try {
      const answer = await this.llm.complete({
        messages: [
          { role: "system", content: "Summarise this conversation for its continuation. Keep file names, commands and decisions." },
          { role: "user", content: prompt },
        ],
        signal,
      });
      const text = contentText(answer.message.content).trim();
      return text || fallback;
    } catch {
      return fallback;
    }
  }

  // Seams for the subclasses. The correct engine keeps no summary between passes: an earlier summary
  // is part of the transcript it is handed, so a pass the host drops leaves nothing behind.
  protected previousSummary(_sessionId: string): string | undefined {
    return undefined;
  }
  protected beforeSummary(_sessionId: string): void {}
  protected onSummaryReady(_sessionId: string, _summary: string): void {}
  protected commitSummary(_sessionId: string, _summary: string): void {
    this.compressionCount++;
  }
}

interface Block {
  start: number;
  messages: Message[];
  score: number;
}

/**
 * A retrieval engine: compaction as in WindowSummaryEngine, plus a per-request selection that keeps the
 * system prompt and the current turn, then the earlier turns that share the most words with the request,
 * in their original order, within the host's budget. It indexes finished turns per session.
 */
export class RetrievalEngine extends WindowSummaryEngine {
  protected readonly turnsSeen = new Map<string, number>();

  override selectContext(requestMessages: Message[], options: SelectContextOptions = {}): Message[] | null {
    const budget = options.budgetTokens || this.contextLength;
    if (!budget || roughTokens(requestMessages) <= budget) return null;
    const { head, blocks, current } = this.blocksOf(requestMessages, options.incomingMessage);
    const kept = this.chooseBlocks(blocks, budget - roughTokens([...head, ...current]));
    const selection = [...this.selectionHead(head), ...kept.flatMap((b) => b.messages), ...current];
    return selection.length > 0 && roughTokens(selection) <= budget ? selection : null;
  }

  protected selectionHead(head: Message[]): Message[] {
    return head;
  }

  /** Earlier turns (each from a user message to the next), scored by words shared with the request. */
  protected blocksOf(messages: Message[], incoming: Message | null | undefined) {
    let headLen = 0;
    while (headLen < messages.length && messages[headLen]!.role === "system") headLen++;
    let lastUser = messages.length;
    for (let i = messages.length - 1; i >= headLen; i--) if (messages[i]!.role === "user") { lastUser = i; break; }
    const query = wordsOf(contentText((incoming ?? messages[lastUser])?.content));
    const blocks: Block[] = [];
    for (let i = headLen; i < lastUser; i++) {
      if (messages[i]!.role === "user" || blocks.length === 0) blocks.push({ start: i, messages: [], score: 0 });
      blocks[blocks.length - 1]!.messages.push(messages[i]!);
    }
    for (const b of blocks) b.score = [...wordsOf(transcriptOf(b.messages))].filter((w) => query.has(w)).length;
    return { head: messages.slice(0, headLen), blocks, current: messages.slice(lastUser) };
  }

  /** The best-scoring blocks that fit `room`, back in conversation order (ties: the later turn wins). */
  protected chooseBlocks(blocks: Block[], room: number): Block[] {
    const ranked = [...blocks].sort((a, b) => b.score - a.score || b.start - a.start);
    const kept: Block[] = [];
    for (const b of ranked) {
      const size = roughTokens(b.messages);
      if (size > room) continue;
      kept.push(b);
      room -= size;
    }
    return kept.sort((a, b) => a.start - b.start);
  }

  override onTurnComplete(messages: readonly Message[], _usage?: Usage | null, meta?: TurnCompleteMeta): void {
    const key = meta?.sessionId ?? "default";
    this.turnsSeen.set(key, messages.filter((m) => m.role === "user").length);
  }

  override getStatus() {
    return { ...super.getStatus(), indexedSessions: this.turnsSeen.size };
  }
}

export function wordsOf(text: string): Set<string> {
  return new Set(text.toLowerCase().split(/[^a-z0-9_./-]+/).filter((w) => w.length > 3));
}

export const SEARCH_TOOL: ToolSchema = {
  name: "journal_search",
  description: "Search the summaries and requests of earlier sessions.",
  parameters: {
    type: "object",
    properties: { query: { type: "string", description: "words to look for" } },
    required: ["query"],
    additionalProperties: false,
  },
};

/** Parse a tool's arguments (an object or a JSON string) into `{ query }`, or say what is wrong. */
export function queryArgument(args: unknown): { query: string } | { error: string } {
  let value = args;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return { error: toolError("journal_search: the arguments are not valid JSON") };
    }
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return { error: toolError("journal_search needs an object with `query`") };
  const query = (value as { query?: unknown }).query;
  if (typeof query !== "string" || !query.trim()) return { error: toolError("journal_search needs `query`: words to look for (a string)") };
  return { query };
}
