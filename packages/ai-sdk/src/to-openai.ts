import type { ContentPart, Message, ToolCall } from "@context-engine/core";
import { encodeJsonSafe } from "./json-safe.js";
import { asSdk } from "./types.js";
import type { SdkMessage, SdkMessageLike, SdkPart } from "./types.js";

/** Field on each OpenAI message carrying what the engine cannot see, for an exact way back. */
export const META_KEY = "ai_sdk";

export interface MessageMeta {
  /** The original SDK message, JSON-safe encoded. */
  message?: unknown;
  /** How many OpenAI messages it became (a tool message with N results becomes N). */
  span?: number;
  /** SDK messages with no OpenAI form (a tool message of approval responses only) that follow this one. */
  trailing?: unknown[];
  /** The same, for such messages at the very start. */
  leading?: unknown[];
}

/** Convert SDK messages (ModelMessage or provider prompt) to OpenAI chat messages with round-trip metadata. */
export function toOpenAIMessages(messages: readonly SdkMessageLike[]): Message[] {
  const out: Message[] = [];
  let leading: unknown[] = [];
  for (const m of asSdk(messages)) {
    const converted = convertMessage(m);
    if (converted.length === 0) {
      // Nothing the engine could read; it rides on the message before it, so it is not lost.
      const last = out[out.length - 1] as Record<string, unknown> | undefined;
      if (!last) leading.push(encodeJsonSafe(m));
      else {
        const meta = ((last[META_KEY] as MessageMeta | undefined) ??= {});
        (meta.trailing ??= []).push(encodeJsonSafe(m));
      }
      continue;
    }
    const meta: MessageMeta = { message: encodeJsonSafe(m), span: converted.length };
    if (leading.length) {
      meta.leading = leading;
      leading = [];
    }
    (converted[0] as Record<string, unknown>)[META_KEY] = meta;
    out.push(...converted);
  }
  return out;
}

/** One SDK message as OpenAI messages, without metadata (also used to check an engine left it unchanged). */
export function convertMessage(m: SdkMessage): Message[] {
  switch (m.role) {
    case "system":
      return [{ role: "system", content: typeof m.content === "string" ? m.content : partsText(m.content) }];
    case "user":
      return [{ role: "user", content: typeof m.content === "string" ? m.content : m.content.map(userPart) }];
    case "assistant":
      return [assistantMessage(m)];
    case "tool":
      return toolMessages(m);
    default:
      return [];
  }
}

function partsText(parts: SdkPart[]): string {
  return parts.map((p) => (typeof p.text === "string" ? p.text : "")).join("");
}

function userPart(p: SdkPart): ContentPart {
  if (p.type === "text") return { type: "text", text: String(p.text ?? "") };
  if (p.type === "image") return { type: "image_url", image_url: { url: dataUrl(p.image, stringOr(p.mediaType, "image/*")) } };
  if (p.type === "file") {
    const mediaType = stringOr(p.mediaType, "application/octet-stream");
    const url = dataUrl(p.data, mediaType);
    if (mediaType.startsWith("image/")) return { type: "image_url", image_url: { url } };
    return { type: "file", file: { file_data: url, ...(typeof p.filename === "string" ? { filename: p.filename } : {}) } };
  }
  return { type: `ai_sdk_${p.type}` };
}

function assistantMessage(m: SdkMessage): Message {
  if (typeof m.content === "string") return { role: "assistant", content: m.content };
  const texts: string[] = [];
  const reasoning: string[] = [];
  const calls: ToolCall[] = [];
  for (const p of m.content) {
    if (p.type === "text") texts.push(String(p.text ?? ""));
    else if (p.type === "reasoning") reasoning.push(String(p.text ?? ""));
    else if (p.type === "tool-call") {
      calls.push({
        id: String(p.toolCallId),
        type: "function",
        function: { name: String(p.toolName), arguments: typeof p.input === "string" ? p.input : JSON.stringify(p.input ?? {}) },
      });
    }
  }
  const msg: Message = { role: "assistant", content: texts.length ? texts.join("") : null };
  if (calls.length) msg.tool_calls = calls;
  if (reasoning.length) (msg as Record<string, unknown>).reasoning_content = reasoning.join("");
  return msg;
}

function toolMessages(m: SdkMessage): Message[] {
  if (typeof m.content === "string") return [];
  const out: Message[] = [];
  for (const p of m.content) {
    if (p.type !== "tool-result") continue;
    out.push({ role: "tool", tool_call_id: String(p.toolCallId), name: String(p.toolName), content: outputContent(p.output) });
  }
  return out;
}

/** A tool result's output as OpenAI tool content: text as is, JSON serialised, media as parts. */
export function outputContent(output: unknown): Message["content"] & (string | ContentPart[]) {
  const o = (output ?? {}) as Record<string, unknown>;
  switch (o.type) {
    case "text":
    case "error-text":
      return String(o.value ?? "");
    case "json":
    case "error-json":
      return JSON.stringify(o.value ?? null);
    case "execution-denied":
      return typeof o.reason === "string" ? `Tool execution denied: ${o.reason}` : "Tool execution denied.";
    case "content":
      return (Array.isArray(o.value) ? o.value : []).map(outputPart);
    default:
      return JSON.stringify(output ?? null);
  }
}

function outputPart(raw: unknown): ContentPart {
  const p = (raw ?? {}) as Record<string, unknown>;
  if (p.type === "text") return { type: "text", text: String(p.text ?? "") };
  if (p.type === "image-data" || p.type === "media") return { type: "image_url", image_url: { url: dataUrl(p.data, stringOr(p.mediaType, "image/*")) } };
  if (p.type === "image-url") return { type: "image_url", image_url: { url: String(p.url) } };
  if (p.type === "file-data") return { type: "file", file: { file_data: dataUrl(p.data, stringOr(p.mediaType, "application/octet-stream")) } };
  if (p.type === "file" && p.data) {
    const mediaType = stringOr(p.mediaType, "application/octet-stream");
    const url = dataUrl(p.data, mediaType);
    return mediaType.startsWith("image/") ? { type: "image_url", image_url: { url } } : { type: "file", file: { file_data: url } };
  }
  return { type: `ai_sdk_${String(p.type)}` };
}

function stringOr(v: unknown, fallback: string): string {
  return typeof v === "string" && v ? v : fallback;
}

/** A URL for image/file data in any of the SDK's forms: bytes, base64, URL, `{type:"data"|"url"}`. */
export function dataUrl(data: unknown, mediaType: string): string {
  if (data instanceof URL) return data.href;
  if (data instanceof Uint8Array) return `data:${mediaType};base64,${Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64")}`;
  if (data instanceof ArrayBuffer) return `data:${mediaType};base64,${Buffer.from(data).toString("base64")}`;
  if (typeof data === "string") return /^(https?:|data:)/i.test(data) ? data : `data:${mediaType};base64,${data}`;
  if (data && typeof data === "object") {
    const d = data as Record<string, unknown>;
    if (d.type === "data") return dataUrl(d.data, mediaType);
    if (d.type === "url") return dataUrl(d.url, mediaType);
    if (d.type === "text" && typeof d.text === "string") return `data:${mediaType};base64,${Buffer.from(d.text).toString("base64")}`;
  }
  return `ai-sdk-reference:${mediaType}`;
}
