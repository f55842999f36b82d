import { z } from "zod";

/**
 * OpenAI chat-completions message model. Schemas are `looseObject` on purpose:
 * providers and hosts attach extra fields (reasoning, cache hints, ids) that an
 * engine must carry through untouched.
 */

export const TextContentPartSchema = z.looseObject({
  type: z.literal("text"),
  text: z.string(),
});

export const ImageContentPartSchema = z.looseObject({
  type: z.literal("image_url"),
  image_url: z.looseObject({ url: z.string(), detail: z.string().optional() }),
});

/** Any other typed part (input_audio, file, refusal, …) passes through. */
export const OtherContentPartSchema = z.looseObject({ type: z.string() });

export const ContentPartSchema = z.union([
  TextContentPartSchema,
  ImageContentPartSchema,
  OtherContentPartSchema,
]);

export const MessageContentSchema = z.union([z.string(), z.array(ContentPartSchema)]);

export const ToolCallSchema = z.looseObject({
  id: z.string().min(1),
  type: z.literal("function").optional(),
  function: z.looseObject({
    name: z.string().min(1),
    arguments: z.string(),
  }),
});

export const SystemMessageSchema = z.looseObject({
  role: z.union([z.literal("system"), z.literal("developer")]),
  content: MessageContentSchema,
  name: z.string().optional(),
});

export const UserMessageSchema = z.looseObject({
  role: z.literal("user"),
  content: MessageContentSchema,
  name: z.string().optional(),
});

export const AssistantMessageSchema = z.looseObject({
  role: z.literal("assistant"),
  content: MessageContentSchema.nullable().optional(),
  tool_calls: z.array(ToolCallSchema).nullable().optional(),
  name: z.string().nullable().optional(),
});

export const ToolMessageSchema = z.looseObject({
  role: z.literal("tool"),
  content: MessageContentSchema,
  tool_call_id: z.string().min(1),
  name: z.string().nullable().optional(),
});

export const MessageSchema = z.discriminatedUnion("role", [
  SystemMessageSchema,
  UserMessageSchema,
  AssistantMessageSchema,
  ToolMessageSchema,
]);

export type TextContentPart = z.infer<typeof TextContentPartSchema>;
export type ContentPart = z.infer<typeof ContentPartSchema>;
export type MessageContent = z.infer<typeof MessageContentSchema>;
export type ToolCall = z.infer<typeof ToolCallSchema>;
export type SystemMessage = z.infer<typeof SystemMessageSchema>;
export type UserMessage = z.infer<typeof UserMessageSchema>;
export type AssistantMessage = z.infer<typeof AssistantMessageSchema>;
export type ToolMessage = z.infer<typeof ToolMessageSchema>;
export type Message = z.infer<typeof MessageSchema>;
export type Role = Message["role"];

export const ROLES: readonly Role[] = ["system", "developer", "user", "assistant", "tool"];

/** The plain text of a message's content: strings as is, text parts joined. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let out = "";
  for (const part of content) {
    if (part && typeof part === "object" && typeof (part as { text?: unknown }).text === "string") {
      if (out) out += "\n";
      out += (part as { text: string }).text;
    }
  }
  return out;
}

/** Whether a value is a plain object (not an array, not null, not a class instance). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Tool calls of an assistant message, or an empty list. */
export function toolCallsOf(message: Message | Record<string, unknown>): ToolCall[] {
  const calls = (message as { tool_calls?: unknown }).tool_calls;
  return Array.isArray(calls) ? (calls as ToolCall[]) : [];
}

/** The last message with role `user`, with its index, or null. */
export function lastUserMessage(messages: readonly Message[]): { index: number; message: Message } | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m && m.role === "user") return { index: i, message: m };
  }
  return null;
}
