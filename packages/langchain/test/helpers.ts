import { ContextEngine, toolError } from "@context-engine/core";
import type { Message, SelectContextOptions, Usage } from "@context-engine/core";
import { AIMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";

/** A fake model answer with provider-style usage figures (cached tokens included). */
export function answer(text: string, usage = { input: 120, output: 8, cacheRead: 100, reasoning: 2 }): AIMessage {
  return new AIMessage({
    content: text,
    usage_metadata: {
      input_tokens: usage.input,
      output_tokens: usage.output,
      total_tokens: usage.input + usage.output,
      input_token_details: { cache_read: usage.cacheRead },
      output_token_details: { reasoning: usage.reasoning },
    },
  });
}

export function toolCallAnswer(calls: Array<{ id: string; name: string; args: Record<string, unknown> }>): AIMessage {
  return new AIMessage({
    content: "",
    tool_calls: calls.map((c) => ({ ...c, type: "tool_call" as const })),
    usage_metadata: { input_tokens: 50, output_tokens: 5, total_tokens: 55 },
  });
}

export { fakeModel };

/** A plain engine: records what it is given; subclasses override what they test. */
export class RecordingEngine extends ContextEngine {
  readonly usages: Usage[] = [];
  readonly selections: Message[][] = [];
  readonly compressions: Message[][] = [];
  readonly turns: Message[][] = [];
  readonly sessionsStarted: string[] = [];
  readonly models: Array<[string, number]> = [];
  compressNow = false;

  get name() {
    return "recording";
  }
  updateFromResponse(usage: Usage) {
    this.usages.push(usage);
    this.recordUsage(usage);
  }
  shouldCompress() {
    return this.compressNow;
  }
  compress(messages: Message[]) {
    this.compressions.push(structuredClone(messages));
    return messages;
  }
  override onSessionStart(sessionId: string) {
    this.sessionsStarted.push(sessionId);
  }
  override updateModel(model: string, contextLength: number) {
    this.models.push([model, contextLength]);
    super.updateModel(model, contextLength);
  }
}

/** Selects: system prompt + only the latest user message, plus a note it adds. */
export class LatestOnlyEngine extends RecordingEngine {
  readonly returned: Message[][] = [];
  override selectContext(request: Message[], _options?: SelectContextOptions) {
    this.selections.push(structuredClone(request));
    const system = request.filter((m) => m.role === "system").slice(0, 1);
    const lastUser = [...request].reverse().find((m) => m.role === "user");
    const chosen: Message[] = [...system, { role: "user", content: "[note from engine]" }, ...(lastUser ? [lastUser] : [])];
    this.returned.push(structuredClone(chosen));
    return chosen;
  }
}

/** An engine with one tool that echoes what it knows. */
export class ToolEngine extends RecordingEngine {
  override getToolSchemas() {
    return [
      {
        name: "engine_lookup",
        description: "Look something up in the engine's memory",
        parameters: { type: "object" as const, properties: { query: { type: "string" } }, required: ["query"] },
      },
    ];
  }
  override handleToolCall(name: string, args: unknown, options?: { messages?: readonly Message[]; sessionId?: string }) {
    if (name !== "engine_lookup") return toolError(`unknown tool ${name}`);
    return JSON.stringify({ query: (args as { query?: string }).query, seen: options?.messages?.length ?? 0, session: options?.sessionId });
  }
}

export function texts(messages: readonly BaseMessage[]): string[] {
  return messages.map((m) => `${m.type}:${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}`);
}
