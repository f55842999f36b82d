import type { Message } from "@context-engine/core";
import { toolCallsOf } from "@context-engine/core";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage, InvalidToolCall, ToolCall } from "@langchain/core/messages";
import { contentFromOpenAI } from "./content.js";
import { OPENAI_ROLE_KEY } from "./to-openai.js";

/** Fields every OpenAI message may have that map onto LangChain fields, not additional_kwargs. */
const MAPPED = new Set(["role", "content", "name", "tool_calls", "tool_call_id"]);

/**
 * One OpenAI-format message → a new LangChain message. Tool calls get their
 * arguments parsed; arguments that are not a JSON object become an invalid
 * tool call with the raw text, so the call and its result stay paired.
 * Unknown fields go to additional_kwargs (and come back out the same way).
 */
export function fromOpenAIMessage(message: Message): BaseMessage {
  const kwargs = extraKwargs(message);
  const name = typeof message.name === "string" && message.name ? message.name : undefined;
  switch (message.role) {
    case "system":
    case "developer": {
      if (message.role === "developer") kwargs[OPENAI_ROLE_KEY] = "developer";
      return new SystemMessage({ content: contentFromOpenAI(message.content) as never, additional_kwargs: kwargs, ...(name ? { name } : {}) });
    }
    case "user":
      return new HumanMessage({ content: contentFromOpenAI(message.content) as never, additional_kwargs: kwargs, ...(name ? { name } : {}) });
    case "tool":
      return new ToolMessage({
        content: contentFromOpenAI(message.content) as never,
        tool_call_id: message.tool_call_id,
        additional_kwargs: kwargs,
        ...(name ? { name } : {}),
      });
    case "assistant": {
      const toolCalls: ToolCall[] = [];
      const invalid: InvalidToolCall[] = [];
      for (const call of toolCallsOf(message)) {
        const args = parseArgs(call.function.arguments);
        if (args === null) {
          invalid.push({ type: "invalid_tool_call", id: call.id, name: call.function.name, args: call.function.arguments, error: "arguments are not a JSON object" });
        } else {
          toolCalls.push({ type: "tool_call", id: call.id, name: call.function.name, args });
        }
      }
      return new AIMessage({
        content: message.content === null || message.content === undefined ? "" : (contentFromOpenAI(message.content) as never),
        tool_calls: toolCalls,
        invalid_tool_calls: invalid,
        additional_kwargs: kwargs,
        ...(name ? { name } : {}),
      });
    }
    default:
      throw new TypeError(`cannot convert a message with role ${JSON.stringify((message as { role?: unknown }).role)}`);
  }
}

function parseArgs(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = text.trim() === "" ? {} : JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function extraKwargs(message: Message): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(message)) {
    if (MAPPED.has(key) || value === undefined) continue;
    out[key] = structuredClone(value);
  }
  return out;
}
