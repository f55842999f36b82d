import type { CompressOptions, Message, ToolSchema, Usage } from "@context-engine/core";
import { ContextEngine, toolCallsOf } from "@context-engine/core";

/** Records everything the adapter hands it; never changes anything. */
export class RecordingEngine extends ContextEngine {
  readonly usages: Usage[] = [];
  readonly compressCalls: Message[][] = [];
  get name() {
    return "recording";
  }
  updateFromResponse(usage: Usage): void {
    this.usages.push(usage);
    this.recordUsage(usage);
  }
  shouldCompress(): boolean {
    return false;
  }
  compress(messages: Message[]): Message[] {
    this.compressCalls.push(messages);
    return messages;
  }
}

/**
 * Compresses whenever there are more than `keepLast + 2` messages: keeps the
 * system head, writes one summary user message, and keeps the last messages
 * from a user or assistant boundary, so tool pairs stay whole.
 */
export class TailEngine extends RecordingEngine {
  readonly decisions: Message[][] = [];
  constructor(readonly keepLast = 2) {
    super();
  }
  override get name() {
    return "tail";
  }
  override shouldCompress(): boolean {
    return true;
  }
  override compress(messages: Message[], _options?: CompressOptions): Message[] {
    this.compressCalls.push(messages);
    const head = messages[0]?.role === "system" ? [messages[0]] : [];
    const body = messages.slice(head.length);
    if (body.length <= this.keepLast + 1) return messages;
    let start = body.length - this.keepLast;
    while (start > 0 && body[start]?.role === "tool") start--;
    if (start <= 1) return messages;
    const dropped = body.slice(0, start);
    const summary: Message = { role: "user", content: `[summary of ${dropped.length} earlier messages]` };
    const tail = body.slice(start);
    const out = [...head, summary, ...(tail[0]?.role === "user" ? [{ role: "assistant", content: "Noted." } as Message] : []), ...tail];
    this.compressionCount++;
    this.decisions.push(out);
    return out;
  }
}

export type Failure = "throw" | "hang" | "garbage" | "orphan";

/** Fails in every hook the adapter calls, in the chosen way. */
export class BrokenEngine extends ContextEngine {
  constructor(readonly failure: Failure) {
    super();
  }
  get name() {
    return `broken-${this.failure}`;
  }
  #fail(): never | Promise<never> | unknown {
    switch (this.failure) {
      case "throw":
        throw new Error("engine exploded");
      case "hang":
        return new Promise(() => {});
      case "garbage":
        return [42, "not a message", null];
      case "orphan":
        return [{ role: "tool", tool_call_id: "nope", content: "orphan" }];
    }
  }
  updateFromResponse(): void {
    if (this.failure === "throw") throw new Error("usage exploded");
  }
  shouldCompress(): boolean {
    if (this.failure === "throw") throw new Error("shouldCompress exploded");
    return true;
  }
  compress(): Message[] {
    return this.#fail() as Message[];
  }
  override selectContext(): Message[] {
    return this.#fail() as Message[];
  }
  override onTurnComplete(): void {
    this.#fail();
  }
  override getToolSchemas(): ToolSchema[] {
    if (this.failure === "throw") throw new Error("schemas exploded");
    return [{ name: "broken_tool", description: "always fails", parameters: { type: "object", properties: {} } }];
  }
  override handleToolCall(): string {
    return this.#fail() as string;
  }
}

/** Keeps only the system prompt and the latest user turn for each request (a selection, never persisted). */
export class LatestTurnEngine extends RecordingEngine {
  readonly selections: Message[][] = [];
  override get name() {
    return "latest-turn";
  }
  override selectContext(messages: Message[]): Message[] {
    let start = messages.length - 1;
    while (start > 0 && messages[start]?.role !== "user") start--;
    const head = messages[0]?.role === "system" ? [messages[0]] : [];
    const out = [...head, ...messages.slice(Math.max(start, head.length))];
    this.selections.push(out);
    return out;
  }
}

/** An engine with one tool that reports how many messages it holds. */
export class ToolEngine extends RecordingEngine {
  override get name() {
    return "tools";
  }
  override getToolSchemas(): ToolSchema[] {
    return [{ name: "ctx_count", description: "Count messages in context", parameters: { type: "object", properties: { role: { type: "string" } } } }];
  }
  override handleToolCall(name: string, args: unknown, options?: { messages?: readonly Message[] }): string {
    const role = (args as { role?: string } | null)?.role;
    const messages = options?.messages ?? [];
    return JSON.stringify({ tool: name, count: messages.filter((m) => !role || m.role === role).length, calls: messages.flatMap(toolCallsOf).length });
  }
}

/** Drop the adapter's round-trip metadata for comparisons. */
export function visible(messages: readonly Message[]): unknown[] {
  return messages.map((m) => {
    const { ai_sdk: _meta, ...rest } = m as Record<string, unknown>;
    return JSON.parse(JSON.stringify(rest));
  });
}
