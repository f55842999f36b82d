import { ContextEngine, toolError } from "@context-engine/core";
import type {
  CompressOptions,
  EngineInitContext,
  Message,
  SelectContextOptions,
  SessionStartOptions,
  ToolCallOptions,
  ToolSchema,
  TurnCompleteMeta,
  Usage,
} from "@context-engine/core";

/**
 * A minimal real engine: threshold on prompt tokens, compaction that keeps the
 * system prompt and the last `keep` messages (tool pairs intact) behind a
 * summary message. Records every hook call for order assertions.
 */
export class RecordingEngine extends ContextEngine {
  readonly calls: Array<{ hook: string; args: unknown[] }> = [];
  keep = 2;
  compressDelayMs = 0;
  forceShouldCompress: boolean | null = null;

  constructor(ctx: EngineInitContext = {}) {
    super();
    if (ctx.contextLength) this.contextLength = ctx.contextLength;
  }

  get name(): string {
    return "recording";
  }

  protected record(hook: string, ...args: unknown[]): void {
    this.calls.push({ hook, args });
  }

  hooks(): string[] {
    return this.calls.map((c) => c.hook);
  }

  updateFromResponse(usage: Usage): void {
    this.record("updateFromResponse", usage);
    this.recordUsage(usage);
  }

  shouldCompress(promptTokens?: number): boolean {
    this.record("shouldCompress", promptTokens);
    if (this.forceShouldCompress !== null) return this.forceShouldCompress;
    const tokens = promptTokens ?? this.lastPromptTokens;
    return this.thresholdTokens > 0 && tokens >= this.thresholdTokens;
  }

  async compress(messages: Message[], options?: CompressOptions): Promise<Message[]> {
    this.record("compress", messages.length, options);
    if (this.compressDelayMs > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.compressDelayMs);
        options?.signal?.addEventListener("abort", () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    const head = messages[0]?.role === "system" ? [messages[0]] : [];
    let start = Math.max(head.length, messages.length - this.keep);
    // Never start the kept tail on a tool result: keep its assistant call too.
    while (start > head.length && messages[start]?.role === "tool") start--;
    if (start <= head.length) return messages;
    this.compressionCount++;
    // The latest user message always survives (hosts refuse a list without it).
    let lastUser = -1;
    for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "user") { lastUser = i; break; }
    const keptUser = lastUser >= head.length && lastUser < start ? [messages[lastUser]!] : [];
    const dropped = messages.length - head.length - (messages.length - start) - keptUser.length;
    return [
      ...head,
      { role: "user", content: `[summary of ${dropped} earlier messages]${options?.focusTopic ? ` focus: ${options.focusTopic}` : ""}` },
      ...keptUser,
      ...messages.slice(start),
    ];
  }

  override onSessionStart(sessionId: string, options?: SessionStartOptions): void {
    this.record("onSessionStart", sessionId, options);
  }
  override onSessionEnd(sessionId: string, messages: readonly Message[]): void {
    this.record("onSessionEnd", sessionId, messages);
  }
  override onSessionReset(): void {
    this.record("onSessionReset");
    super.onSessionReset();
  }
  override updateModel(model: string, contextLength: number, options?: Record<string, unknown>): void {
    this.record("updateModel", model, contextLength, options);
    super.updateModel(model, contextLength, options);
  }
}

/** An engine that implements selection, observation and a tool. */
export class SelectingEngine extends RecordingEngine {
  selectImpl: (request: Message[], options?: SelectContextOptions) => unknown = () => null;
  turnCompleteImpl: (messages: readonly Message[], usage?: Usage | null, meta?: TurnCompleteMeta) => unknown = () => undefined;
  toolImpl: (name: string, args: unknown, options?: ToolCallOptions) => unknown = (name, args) => JSON.stringify({ name, args });

  override get name(): string {
    return "selecting";
  }

  override selectContext(request: Message[], options?: SelectContextOptions): Message[] | null {
    this.record("selectContext", request, options);
    return this.selectImpl(request, options) as Message[] | null;
  }

  override onTurnComplete(messages: readonly Message[], usage?: Usage | null, meta?: TurnCompleteMeta): void {
    this.record("onTurnComplete", messages, usage, meta);
    this.turnCompleteImpl(messages, usage, meta);
  }

  override getToolSchemas(): ToolSchema[] {
    return [
      { name: "ctx_search", description: "Search the context store", parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] } },
    ];
  }

  override handleToolCall(name: string, args: unknown, options?: ToolCallOptions): string {
    this.record("handleToolCall", name, args, options);
    if (name !== "ctx_search") return toolError(`Unknown context engine tool: ${name}`);
    return this.toolImpl(name, args, options) as string;
  }
}
