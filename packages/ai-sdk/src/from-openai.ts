import type { Message } from "@context-engine/core";
import { contentText, toolCallsOf } from "@context-engine/core";
import { decodeJsonSafe, deepEqual } from "./json-safe.js";
import { META_KEY, convertMessage } from "./to-openai.js";
import type { MessageMeta } from "./to-openai.js";
import type { ModelMessage, SdkDialect, SdkMessage, SdkPart } from "./types.js";

/**
 * Convert OpenAI messages (as an engine returned them) back to SDK messages.
 * A message the engine left unchanged comes back as the exact original (parts
 * order, provider options, reasoning, approvals); one it changed or wrote is
 * built from its OpenAI fields, keeping what the original tool calls carried.
 */
export function fromOpenAIMessages(messages: readonly Message[], dialect?: "model-message"): ModelMessage[];
/** Provider-prompt dialects (`prompt-v3`, `prompt-v4`) give the language-model prompt's message shapes. */
export function fromOpenAIMessages(messages: readonly Message[], dialect: SdkDialect): SdkMessage[];
export function fromOpenAIMessages(messages: readonly Message[], dialect: SdkDialect = "model-message"): SdkMessage[] | ModelMessage[] {
  return convertFromOpenAI(messages, dialect);
}

/** Internal form of `fromOpenAIMessages`: the adapter's own loose message shape. */
export function convertFromOpenAI(messages: readonly Message[], dialect: SdkDialect = "model-message"): SdkMessage[] {
  const out: SdkMessage[] = [];
  const toolNames = new Map<string, string>();
  const callMeta = new Map<string, SdkPart>();
  // A rebuilt tool message that later consecutive rebuilt results join, as the SDK groups them.
  let openToolGroup: SdkPart[] | null = null;
  let i = 0;
  const riders = (key: "leading" | "trailing", at: number) => {
    const list = (messages[at] as Record<string, unknown> | undefined)?.[META_KEY] as Record<string, unknown> | undefined;
    const items = list?.[key];
    if (Array.isArray(items)) for (const item of items) out.push(decodeJsonSafe(item) as SdkMessage);
  };
  while (i < messages.length) {
    riders("leading", i);
    const original = unchangedOriginal(messages, i);
    if (original) {
      rememberCalls(original.message, toolNames, callMeta);
      out.push(original.message);
      openToolGroup = null;
      for (let k = i; k < i + original.span; k++) riders("trailing", k);
      i += original.span;
      continue;
    }
    const m = messages[i] as Message;
    if (m.role === "tool") {
      const part = toolResultPart(m, toolNames);
      if (openToolGroup) openToolGroup.push(part);
      else {
        openToolGroup = [part];
        out.push({ role: "tool", content: openToolGroup });
      }
    } else {
      openToolGroup = null;
      const built = rebuild(m, dialect, callMeta);
      rememberCalls(built, toolNames, callMeta);
      out.push(built);
    }
    if ((messages[i] as Record<string, unknown>)?.[META_KEY]) {
      const before = out.length;
      riders("trailing", i);
      if (out.length > before) openToolGroup = null;
    }
    i++;
  }
  return out;
}

function metaOf(m: unknown): (MessageMeta & { span: number }) | null {
  const meta = (m as Record<string, unknown> | undefined)?.[META_KEY] as MessageMeta | undefined;
  return meta && typeof meta === "object" && typeof meta.span === "number" && meta.message ? (meta as MessageMeta & { span: number }) : null;
}

/** The original SDK message when messages[i..i+span) are exactly what it converted to. */
function unchangedOriginal(messages: readonly Message[], i: number): { message: SdkMessage; span: number } | null {
  const meta = metaOf(messages[i]);
  if (!meta || i + meta.span > messages.length) return null;
  const message = decodeJsonSafe(meta.message) as SdkMessage;
  const regenerated = convertMessage(message);
  if (regenerated.length !== meta.span) return null;
  for (let k = 0; k < meta.span; k++) {
    if (!deepEqual(regenerated[k], withoutMeta(messages[i + k]))) return null;
  }
  return { message, span: meta.span };
}

function withoutMeta(m: unknown): unknown {
  if (!m || typeof m !== "object") return m;
  const { [META_KEY]: _meta, ...rest } = m as Record<string, unknown>;
  return rest;
}

function rememberCalls(m: SdkMessage, names: Map<string, string>, meta: Map<string, SdkPart>): void {
  if (m.role !== "assistant" || !Array.isArray(m.content)) return;
  for (const p of m.content) {
    if (p.type === "tool-call") {
      names.set(String(p.toolCallId), String(p.toolName));
      meta.set(String(p.toolCallId), p);
    }
  }
}

function rebuild(m: Message, dialect: SdkDialect, callMeta: Map<string, SdkPart>): SdkMessage {
  const extra = (m as Record<string, unknown>);
  if (m.role === "system" || m.role === "developer") return { role: "system", content: contentText(m.content) };
  if (m.role === "user") {
    if (typeof m.content === "string") return dialect === "model-message" ? { role: "user", content: m.content } : { role: "user", content: [{ type: "text", text: m.content }] };
    return { role: "user", content: (m.content as unknown[]).map((p) => userPart(p, dialect)).filter((p): p is SdkPart => p !== null) };
  }
  const parts: SdkPart[] = [];
  if (typeof extra.reasoning_content === "string" && extra.reasoning_content) parts.push({ type: "reasoning", text: extra.reasoning_content });
  const text = contentText(m.content);
  if (text) parts.push({ type: "text", text });
  for (const call of toolCallsOf(m)) {
    const known = callMeta.get(call.id);
    parts.push({
      ...(known ?? {}),
      type: "tool-call",
      toolCallId: call.id,
      toolName: call.function.name,
      input: parseArguments(call.function.arguments),
    });
  }
  if (dialect === "model-message" && parts.length === 1 && parts[0]?.type === "text") return { role: "assistant", content: text };
  return { role: "assistant", content: parts };
}

function parseArguments(raw: string): unknown {
  try {
    return raw.trim() === "" ? {} : JSON.parse(raw);
  } catch {
    return raw;
  }
}

function userPart(raw: unknown, dialect: SdkDialect): SdkPart | null {
  const p = (raw ?? {}) as Record<string, unknown>;
  if (p.type === "text" && typeof p.text === "string") return { type: "text", text: p.text };
  if (p.type === "image_url") {
    const url = String((p.image_url as Record<string, unknown> | undefined)?.url ?? "");
    return mediaPart(url, "image/*", dialect, true);
  }
  if (p.type === "file") {
    const file = (p.file ?? {}) as Record<string, unknown>;
    const part = mediaPart(String(file.file_data ?? ""), "application/octet-stream", dialect, false);
    if (part && typeof file.filename === "string") part.filename = file.filename;
    return part;
  }
  return null;
}

function mediaPart(url: string, fallbackType: string, dialect: SdkDialect, image: boolean): SdkPart | null {
  const match = /^data:([^;,]+)?(;base64)?,(.*)$/s.exec(url);
  const mediaType = match?.[1] ?? fallbackType;
  const payload: string | URL | null = match ? (match[2] ? (match[3] ?? "") : Buffer.from(decodeURIComponent(match[3] ?? "")).toString("base64")) : safeUrl(url);
  if (payload === null) return null;
  if (dialect === "model-message") {
    // A file part with an image media type: ai@7 deprecates the "image" part, ai@6 accepts both.
    return { type: "file", data: payload, mediaType: image && !match?.[1] ? "image/*" : mediaType };
  }
  if (dialect === "prompt-v4") {
    const data = payload instanceof URL ? { type: "url", url: payload } : { type: "data", data: payload };
    return { type: "file", data, mediaType };
  }
  return { type: "file", data: payload, mediaType };
}

function safeUrl(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

function toolResultPart(m: Message, toolNames: Map<string, string>): SdkPart {
  const id = String((m as { tool_call_id?: unknown }).tool_call_id ?? "");
  const name = toolNames.get(id) ?? (typeof (m as { name?: unknown }).name === "string" ? String((m as { name: string }).name) : "unknown");
  const content = m.content;
  const output =
    typeof content === "string"
      ? { type: "text", value: content }
      : { type: "content", value: (content as unknown[]).map(resultPart).filter((p) => p !== null) };
  return { type: "tool-result", toolCallId: id, toolName: name, output };
}

function resultPart(raw: unknown): Record<string, unknown> | null {
  const p = (raw ?? {}) as Record<string, unknown>;
  if (p.type === "text" && typeof p.text === "string") return { type: "text", text: p.text };
  if (p.type === "image_url") {
    const url = String((p.image_url as Record<string, unknown> | undefined)?.url ?? "");
    const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
    return match ? { type: "image-data", data: match[2], mediaType: match[1] } : { type: "image-url", url };
  }
  return null;
}
