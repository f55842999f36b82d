import { contentText, isPlainObject, toolCallsOf } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import type { OriginIndex } from "./convert-to-openai.js";
import type {
  OcAgentMessage,
  OcAssistantMessage,
  OcImageContent,
  OcTextContent,
  OcThinkingContent,
  OcToolCall,
  OcUsage,
} from "./openclaw-types.js";

export interface FromOpenAiResult {
  messages: OcAgentMessage[];
  /** System/developer messages the engine added: OpenClaw takes them as `systemPromptAddition`. */
  systemText: string;
}

/** Provider identity for assistant messages the engine wrote itself (summaries, notes). */
export interface AssistantTemplate {
  api: string;
  provider: string;
  model: string;
}

const ZERO_USAGE: OcUsage = Object.freeze({
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: Object.freeze({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }),
}) as OcUsage;

/**
 * OpenAI chat messages → OpenClaw agent messages. Messages the engine kept
 * unchanged come back as their originals (from `origins`); new or edited ones
 * are converted, keeping tool call ids so each result still answers its call.
 */
export function fromOpenAiMessages(
  messages: readonly Message[],
  origins: OriginIndex | null,
  template: AssistantTemplate,
  now: number = Date.now(),
): FromOpenAiResult {
  const out: OcAgentMessage[] = [];
  const system: string[] = [];
  const callNames = new Map<string, string>();
  for (const message of messages) {
    for (const call of toolCallsOf(message)) callNames.set(call.id, call.function.name);
    const original = origins?.take(message);
    if (original) {
      out.push(original);
      continue;
    }
    if (message.role === "system" || message.role === "developer") {
      const text = contentText(message.content);
      if (text) system.push(text);
      continue;
    }
    out.push(convertOne(message, callNames, template, now));
  }
  return { messages: out, systemText: system.join("\n\n") };
}

function convertOne(message: Message, callNames: Map<string, string>, template: AssistantTemplate, now: number): OcAgentMessage {
  if (message.role === "assistant") return assistantFromOpenAi(message, template, now);
  if (message.role === "tool") {
    const record = message as Record<string, unknown>;
    const name = typeof record.name === "string" && record.name ? record.name : callNames.get(message.tool_call_id) ?? "unknown";
    return {
      role: "toolResult",
      toolCallId: message.tool_call_id,
      toolName: name,
      content: partsFromOpenAi(message.content),
      isError: record.is_error === true,
      timestamp: now,
    };
  }
  const content = message.content;
  return { role: "user", content: typeof content === "string" ? content : partsFromOpenAi(content), timestamp: now };
}

function assistantFromOpenAi(message: Message, template: AssistantTemplate, now: number): OcAssistantMessage {
  const blocks: OcAssistantMessage["content"] = [];
  const reasoning = (message as Record<string, unknown>).reasoning_content;
  if (typeof reasoning === "string" && reasoning) blocks.push({ type: "thinking", thinking: reasoning } satisfies OcThinkingContent);
  const text = contentText(message.content);
  if (text) blocks.push({ type: "text", text });
  const calls = toolCallsOf(message);
  for (const call of calls) {
    blocks.push({ type: "toolCall", id: call.id, name: call.function.name, arguments: parseArguments(call.function.arguments) } satisfies OcToolCall);
  }
  return {
    role: "assistant",
    content: blocks,
    api: template.api,
    provider: template.provider,
    model: template.model,
    usage: ZERO_USAGE,
    stopReason: calls.length ? "toolUse" : "stop",
    timestamp: now,
  };
}

/** pi-ai wants an argument object; anything else is kept under `value` so nothing is lost. */
function parseArguments(raw: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(raw || "{}");
    return isPlainObject(parsed) ? parsed : { value: parsed };
  } catch {
    return { value: raw };
  }
}

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

function partsFromOpenAi(content: unknown): (OcTextContent | OcImageContent)[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) return [];
  const out: (OcTextContent | OcImageContent)[] = [];
  for (const part of content) {
    if (!isPlainObject(part)) continue;
    if (part.type === "text" && typeof part.text === "string") out.push({ type: "text", text: part.text });
    else if (part.type === "image_url" && isPlainObject(part.image_url) && typeof part.image_url.url === "string") {
      const match = DATA_URL.exec(part.image_url.url);
      if (match) out.push({ type: "image", mimeType: match[1]!, data: match[2]! });
      else out.push({ type: "text", text: `[image: ${part.image_url.url}]` });
    }
  }
  return out;
}

/** The provider identity of the latest assistant message, for messages the engine writes. */
export function assistantTemplateOf(messages: readonly OcAgentMessage[]): AssistantTemplate {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as Partial<OcAssistantMessage> | undefined;
    if (m?.role === "assistant" && typeof m.api === "string" && typeof m.provider === "string" && typeof m.model === "string") {
      return { api: m.api, provider: m.provider, model: m.model };
    }
  }
  return { api: "openai-completions", provider: "context-engine", model: "context-engine" };
}
