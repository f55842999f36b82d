import { ContextEngine } from "@context-engine/core";
import type { CompressOptions, Message, SelectContextOptions, TurnCompleteMeta, Usage } from "@context-engine/core";

/** Does nothing: the bare path through the adapter. */
export class NoopEngine extends ContextEngine {
  get name() {
    return "noop";
  }
  updateFromResponse(usage: Usage) {
    this.recordUsage(usage);
  }
  shouldCompress() {
    return false;
  }
  compress(messages: Message[]) {
    return messages;
  }
}

/** Always compacts: keeps the first user message, a summary, and the last `keep` messages (cut at a user turn). */
export class TailEngine extends ContextEngine {
  compressCalls: CompressOptions[] = [];
  turns: Message[][] = [];
  usages: Usage[] = [];
  constructor(readonly keep = 2, public always = true) {
    super();
  }
  get name() {
    return "tail";
  }
  updateFromResponse(usage: Usage) {
    this.usages.push(usage);
    this.recordUsage(usage);
  }
  shouldCompress() {
    return this.always;
  }
  compress(messages: Message[], options?: CompressOptions) {
    this.compressCalls.push(options ?? {});
    let start = Math.max(0, messages.length - this.keep);
    while (start > 0 && messages[start]?.role !== "user") start--;
    if (start <= 1) return messages;
    return [{ role: "system", content: `summary of ${start} messages` } as Message, ...messages.slice(start)];
  }
  override onTurnComplete(messages: readonly Message[]) {
    this.turns.push([...messages]);
  }
}

/** Misbehaves in one chosen way. */
export class BadEngine extends ContextEngine {
  constructor(readonly mode: "throw" | "hang" | "garbage" | "orphan") {
    super();
  }
  get name() {
    return `bad-${this.mode}`;
  }
  updateFromResponse() {
    if (this.mode === "throw") throw new Error("usage boom");
  }
  shouldCompress() {
    return true;
  }
  compress(messages: Message[]): Message[] | Promise<Message[]> {
    if (this.mode === "throw") throw new Error("compress boom");
    if (this.mode === "hang") return new Promise<Message[]>(() => {});
    if (this.mode === "garbage") return [{ role: "wizard", content: 42 }] as unknown as Message[];
    // Drop the assistant tool calls but keep their results: orphaned tool results.
    return messages.filter((m) => m.role !== "assistant");
  }
  override selectContext(): Message[] | null {
    if (this.mode === "throw") throw new Error("select boom");
    return "nonsense" as unknown as Message[];
  }
  override onTurnComplete() {
    if (this.mode === "throw") throw new Error("turn boom");
    if (this.mode === "hang") return new Promise<void>(() => {});
  }
}

/** Records what the adapter tells it: windows, compress calls (with options), selections and turns with their meta. */
export class RecordingEngine extends ContextEngine {
  windows: number[] = [];
  compressCalls: { size: number; options: CompressOptions }[] = [];
  selectCalls: { size: number; options: SelectContextOptions }[] = [];
  turns: { messages: Message[]; meta: TurnCompleteMeta }[] = [];
  constructor(readonly keep = 2) {
    super();
  }
  get name() {
    return "recording";
  }
  override updateModel(model: string, contextLength: number) {
    this.windows.push(contextLength);
    return super.updateModel(model, contextLength);
  }
  updateFromResponse(usage: Usage) {
    this.recordUsage(usage);
  }
  shouldCompress(tokens?: number) {
    return this.thresholdTokens > 0 && (tokens ?? this.lastPromptTokens) >= this.thresholdTokens;
  }
  compress(messages: Message[], options: CompressOptions = {}) {
    this.compressCalls.push({ size: messages.length, options });
    let start = Math.max(0, messages.length - this.keep);
    while (start > 0 && messages[start]?.role !== "user") start--;
    if (start <= 1) return messages;
    return [{ role: "user", content: `summary of ${start} messages` } as Message, ...messages.slice(start)];
  }
  override onTurnComplete(messages: readonly Message[], _usage?: Usage | null, meta: TurnCompleteMeta = {}) {
    this.turns.push({ messages: [...messages], meta });
  }
}
