import type { ContentPart, Message, ToolCall } from "@context-engine/core";
import type { OcAgentMessage, OcAssistantMessage, OcImageContent, OcTextContent, OcToolResultMessage } from "./openclaw-types.js";

/**
 * OpenClaw (pi-ai) agent messages → OpenAI chat messages, plus an index that
 * maps each produced message back to the message it came from. Engines may
 * clone what they get, so the index is keyed by the produced message's JSON:
 * a message the engine kept unchanged comes back as the very original, with
 * provider metadata, signatures, usage and timestamps intact.
 */
export class OriginIndex {
  readonly #byKey = new Map<string, OcAgentMessage[]>();

  add(converted: Message, original: OcAgentMessage): void {
    const key = fingerprint(converted);
    const list = this.#byKey.get(key);
    if (list) list.push(original);
    else this.#byKey.set(key, [original]);
  }

  /** The original of an unchanged message, once per original (duplicates map in order). */
  take(message: Message): OcAgentMessage | undefined {
    const list = this.#byKey.get(fingerprint(message));
    return list?.shift();
  }
}

export function fingerprint(message: Message): string {
  return JSON.stringify(message);
}

export interface ToOpenAiResult {
  messages: Message[];
  origins: OriginIndex;
}

/** Convert a whole list; tool call ids and order are preserved, so pairs stay paired. */
export function toOpenAiMessages(messages: readonly OcAgentMessage[]): ToOpenAiResult {
  const origins = new OriginIndex();
  const out: Message[] = [];
  for (const original of messages) {
    const converted = toOpenAiMessage(original);
    if (!converted) continue;
    origins.add(converted, original);
    out.push(converted);
  }
  return { messages: out, origins };
}

/** One message; null for values that are not messages at all. */
export function toOpenAiMessage(message: OcAgentMessage): Message | null {
  if (!message || typeof message !== "object") return null;
  switch (message.role) {
    case "user":
      return { role: "user", content: userContent(message.content) };
    case "assistant":
      return assistantToOpenAi(message as OcAssistantMessage);
    case "toolResult":
      return toolResultToOpenAi(message as OcToolResultMessage);
    default:
      return harnessToOpenAi(message as unknown as Record<string, unknown>);
  }
}

function userContent(content: unknown): string | ContentPart[] {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map(partToOpenAi);
}

function partToOpenAi(part: OcTextContent | OcImageContent): ContentPart {
  if (part && part.type === "image") {
    return { type: "image_url", image_url: { url: `data:${part.mimeType};base64,${part.data}` } };
  }
  return { type: "text", text: typeof part?.text === "string" ? part.text : "" };
}

function assistantToOpenAi(message: OcAssistantMessage): Message {
  const texts: string[] = [];
  const reasoning: string[] = [];
  const calls: ToolCall[] = [];
  for (const block of Array.isArray(message.content) ? message.content : []) {
    if (block.type === "text") texts.push(block.text);
    else if (block.type === "thinking" && !block.redacted) reasoning.push(block.thinking);
    else if (block.type === "toolCall") {
      calls.push({ id: block.id, type: "function", function: { name: block.name, arguments: JSON.stringify(block.arguments ?? {}) } });
    }
  }
  const out: Message = { role: "assistant", content: texts.length ? texts.join("\n") : null };
  if (calls.length) out.tool_calls = calls;
  if (reasoning.length) (out as Record<string, unknown>).reasoning_content = reasoning.join("\n");
  return out;
}

function toolResultToOpenAi(message: OcToolResultMessage): Message {
  const parts = Array.isArray(message.content) ? message.content : [];
  const textOnly = parts.every((p) => p.type === "text");
  const content = textOnly ? parts.map((p) => (p as OcTextContent).text).join("\n") : parts.map(partToOpenAi);
  const out: Message = { role: "tool", tool_call_id: message.toolCallId, content, name: message.toolName };
  if (message.isError) (out as Record<string, unknown>).is_error = true;
  return out;
}

/** Harness messages (summaries, custom, shell runs) reach the model as user text, as OpenClaw renders them. */
function harnessToOpenAi(message: Record<string, unknown>): Message | null {
  const role = typeof message.role === "string" ? message.role : "unknown";
  let text: string;
  if (role === "compactionSummary" || role === "branchSummary") text = String(message.summary ?? "");
  else if (role === "bashExecution") text = `$ ${String(message.command ?? "")}\n${String(message.output ?? "")}`;
  else if (typeof message.content === "string" || Array.isArray(message.content)) {
    const content = userContent(message.content);
    return { role: "user", content, openclaw_role: role } as Message;
  } else return null;
  return { role: "user", content: text, openclaw_role: role } as Message;
}
