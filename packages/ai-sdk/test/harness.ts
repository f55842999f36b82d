import type { Message } from "@context-engine/core";
import { contentText, toolCallsOf } from "@context-engine/core";
import { toOpenAIMessages } from "../src/index.js";
import type { SdkMessage } from "../src/index.js";

/** The parts of one SDK major the suites drive; each major's test file fills it from its own package. */
export interface SdkKit {
  major: 6 | 7;
  // The SDK's functions and mock model class; typed loosely so one suite drives both majors.
  generateText: (options: any) => Promise<any>;
  streamText: (options: any) => any;
  wrapLanguageModel: (options: any) => any;
  stepCountIs: (n: number) => unknown;
  MockModel: new (options: any) => any;
  modelMessageSchema: { safeParse(value: unknown): { success: boolean; error?: unknown } };
  specificationVersion: "v3" | "v4";
  /** `instructions` (ai@7) or `system` (ai@6). */
  systemKey: "instructions" | "system";
}

export type Scripted = { text: string } | { calls: Array<{ id: string; name: string; input: unknown }> };

export const usageOf = (n: number) => ({
  inputTokens: { total: 100 + n, noCache: 60 + n, cacheRead: 40, cacheWrite: 3 },
  outputTokens: { total: 10, text: 8, reasoning: 2 },
});

const usageFor = (input: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 10, text: 10, reasoning: 0 },
});

/** A mock model that answers from a script and records every prompt it receives. */
export function scriptedModel(kit: SdkKit, script: Scripted[], options: { promptSizedUsage?: boolean } = {}) {
  const prompts: SdkMessage[][] = [];
  let turn = 0;
  const next = (prompt: SdkMessage[]) => {
    prompts.push(clone(prompt));
    const step = script[Math.min(turn, script.length - 1)] as Scripted;
    const n = turn++;
    // A real provider reports the prompt's size; the real engines decide from it.
    const usage = options.promptSizedUsage ? usageFor(Math.ceil(JSON.stringify(prompt).length / 4)) : usageOf(n);
    return { step, usage };
  };
  const model = new kit.MockModel({
    // URLs go to the model as they are (no download).
    supportedUrls: { "*/*": [/^https?:\/\//] },
    doGenerate: async ({ prompt }: { prompt: SdkMessage[] }) => {
      const { step, usage } = next(prompt);
      const content =
        "text" in step
          ? [{ type: "text", text: step.text }]
          : step.calls.map((c) => ({ type: "tool-call", toolCallId: c.id, toolName: c.name, input: JSON.stringify(c.input) }));
      return { content, finishReason: { unified: "text" in step ? "stop" : "tool-calls", raw: undefined }, usage, warnings: [] };
    },
    doStream: async ({ prompt }: { prompt: SdkMessage[] }) => {
      const { step, usage } = next(prompt);
      const parts: unknown[] = [{ type: "stream-start", warnings: [] }];
      if ("text" in step) parts.push({ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: step.text }, { type: "text-end", id: "t" });
      else for (const c of step.calls) parts.push({ type: "tool-call", toolCallId: c.id, toolName: c.name, input: JSON.stringify(c.input) });
      parts.push({ type: "finish", finishReason: { unified: "text" in step ? "stop" : "tool-calls", raw: undefined }, usage });
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const p of parts) controller.enqueue(p);
            controller.close();
          },
        }),
      };
    },
  });
  return { model, prompts };
}

/** What a model reads from a conversation: roles, text, tool calls and results, comparable across formats. */
export function readable(messages: readonly Message[]): unknown[] {
  return messages.map((m) => {
    const calls = toolCallsOf(m).map((c) => ({ id: c.id, name: c.function.name, args: JSON.parse(c.function.arguments || "{}") }));
    const out: Record<string, unknown> = { role: m.role === "developer" ? "system" : m.role, text: contentText(m.content) };
    if (calls.length) out.calls = calls;
    if (m.role === "tool") out.id = m.tool_call_id;
    return out;
  });
}

/** A provider prompt as the model saw it, in the same readable form. */
export function seen(prompt: SdkMessage[]): unknown[] {
  return readable(toOpenAIMessages(prompt));
}

/** A deep copy that keeps URLs and bytes (structuredClone refuses URL objects). */
function clone<T>(value: T): T {
  if (value instanceof URL) return new URL(value.href) as T;
  if (value instanceof Uint8Array) return new Uint8Array(value) as T;
  if (Array.isArray(value)) return value.map(clone) as T;
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clone(v)])) as T;
  return value;
}
