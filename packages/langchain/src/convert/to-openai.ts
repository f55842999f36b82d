import type { Message, ToolCall } from "@context-engine/core";
import { AIMessage, BaseMessage, ChatMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { contentToOpenAI } from "./content.js";

/** Where an OpenAI role that LangChain has no class for (developer) is kept. */
export const OPENAI_ROLE_KEY = "openai_role";

/** additional_kwargs keys that LangChain or providers use internally; never copied onto OpenAI messages. */
const INTERNAL_KWARGS = new Set(["tool_calls", "function_call", OPENAI_ROLE_KEY]);

/**
 * One LangChain message → one OpenAI-format message. Tool calls become
 * `tool_calls` with JSON-string arguments (invalid calls keep their raw
 * argument text so their results stay paired); extra `additional_kwargs`
 * (e.g. `reasoning_content`) travel as extra fields. Returns null for messages
 * an OpenAI conversation cannot hold (e.g. a RemoveMessage).
 */
export function toOpenAIMessage(message: BaseMessage): Message | null {
  if (AIMessage.isInstance(message)) return assistantToOpenAI(message);
  if (ToolMessage.isInstance(message)) {
    const out: Message = {
      ...extras(message),
      role: "tool",
      content: contentToOpenAI(message.content),
      tool_call_id: message.tool_call_id,
    };
    if (message.name) out.name = message.name;
    return out;
  }
  if (HumanMessage.isInstance(message)) return withName({ ...extras(message), role: "user", content: contentToOpenAI(message.content) }, message);
  if (SystemMessage.isInstance(message)) {
    const role = message.additional_kwargs?.[OPENAI_ROLE_KEY] === "developer" ? "developer" : "system";
    return withName({ ...extras(message), role, content: contentToOpenAI(message.content) }, message);
  }
  if (ChatMessage.isInstance(message)) {
    const role = message.role === "system" || message.role === "developer" || message.role === "assistant" ? message.role : "user";
    if (role === "assistant") return { ...extras(message), role, content: contentToOpenAI(message.content) };
    return withName({ ...extras(message), role, content: contentToOpenAI(message.content) }, message);
  }
  return null;
}

function assistantToOpenAI(message: AIMessage): Message {
  const calls: ToolCall[] = [];
  for (const call of message.tool_calls ?? []) {
    calls.push({
      id: call.id ?? "",
      type: "function",
      function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
    });
  }
  for (const call of message.invalid_tool_calls ?? []) {
    if (!call.id) continue;
    calls.push({ id: call.id, type: "function", function: { name: call.name ?? "", arguments: call.args ?? "" } });
  }
  const content = contentToOpenAI(message.content);
  const out: Message = { ...extras(message), role: "assistant", content };
  if (calls.length > 0) out.tool_calls = calls;
  if (message.name) out.name = message.name;
  return out;
}

function withName<T extends Message>(out: T, message: BaseMessage): T {
  if (message.name) (out as { name?: string }).name = message.name;
  return out;
}

/** Extra OpenAI fields kept in additional_kwargs, copied (JSON data only). */
function extras(message: BaseMessage): Record<string, unknown> {
  const kwargs = message.additional_kwargs;
  if (!kwargs) return {};
  let out: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(kwargs)) {
    if (INTERNAL_KWARGS.has(key) || value === undefined || typeof value === "function") continue;
    if (key === "role" || key === "content" || key === "tool_call_id") continue;
    out ??= {};
    out[key] = structuredClone(value);
  }
  return out ?? {};
}

/** A whole LangChain list → OpenAI list; unconvertible entries are skipped. */
export function toOpenAIMessages(messages: readonly BaseMessage[]): Message[] {
  const out: Message[] = [];
  for (const m of messages) {
    const converted = toOpenAIMessage(m);
    if (converted) out.push(converted);
  }
  return out;
}
