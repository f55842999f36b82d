import { contentText, toolCallsOf } from "@context-engine/core";
import type { Message } from "@context-engine/core";

/** A stored message as compaction sees it. */
export interface SourceMessage {
  seq: number;
  message: Message;
  /** Milliseconds since the epoch, when known. */
  createdAt?: number | null;
}

// Per-message cap on what the summariser sees: huge tool output is shown head+tail.
const MAX_MESSAGE_CHARS = 6_000;

/** Shorten long text to its head and tail with a marker in between. */
export function headTail(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const keep = Math.max(0, maxChars - 40);
  const head = Math.ceil(keep * 0.6);
  const tail = keep - head;
  return `${text.slice(0, head)}\n[… ${text.length - head - tail} characters omitted …]\n${text.slice(text.length - tail)}`;
}

/** The visible text of a message, with images and other binary parts named rather than inlined. */
export function messageText(message: Message): string {
  const content = (message as { content?: unknown }).content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const out: string[] = [];
  for (const part of content) {
    if (!part || typeof part !== "object") continue;
    const p = part as Record<string, unknown>;
    if (typeof p.text === "string") out.push(p.text);
    else if (p.type === "image_url" || p.type === "image") out.push("[image attachment]");
    else if (typeof p.type === "string") out.push(`[${p.type} attachment]`);
  }
  return out.length ? out.join("\n") : contentText(content);
}

/** Serialise messages for the summariser: one block per message, labelled with its sequence number. */
export function renderSourceMessages(messages: readonly SourceMessage[]): string {
  const blocks: string[] = [];
  for (const { seq, message, createdAt } of messages) {
    const when = createdAt ? ` ${new Date(createdAt).toISOString()}` : "";
    const role = message.role;
    const lines: string[] = [];
    if (role === "tool") {
      const name = (message as { name?: string | null }).name;
      lines.push(`[#${seq} tool result${name ? ` ${name}` : ""}${when}]`);
    } else lines.push(`[#${seq} ${role}${when}]`);
    const text = messageText(message);
    if (text) lines.push(headTail(text, MAX_MESSAGE_CHARS));
    for (const call of toolCallsOf(message)) {
      lines.push(`→ calls ${call.function.name}(${headTail(call.function.arguments, 1_500)})`);
    }
    blocks.push(lines.join("\n"));
  }
  return blocks.join("\n\n");
}
