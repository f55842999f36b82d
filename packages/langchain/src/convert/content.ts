import type { ContentPart, MessageContent } from "@context-engine/core";

type Block = Record<string, unknown>;

/** Block types that repeat an AI message's tool calls inside its content (Anthropic, standard v1). */
const TOOL_CALL_BLOCK_TYPES = new Set(["tool_use", "tool_call", "tool_call_chunk", "input_json_delta"]);

/**
 * LangChain content → OpenAI content. Strings and OpenAI-shaped parts pass
 * through (copied); LangChain's standard image blocks become `image_url`
 * parts with a URL or data URL. Tool-call blocks are dropped because the
 * calls travel in `tool_calls`.
 */
export function contentToOpenAI(content: unknown): MessageContent {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: ContentPart[] = [];
  for (const raw of content) {
    if (typeof raw === "string") {
      parts.push({ type: "text", text: raw });
      continue;
    }
    if (!raw || typeof raw !== "object") continue;
    const block = raw as Block;
    if (typeof block.type !== "string" || TOOL_CALL_BLOCK_TYPES.has(block.type)) continue;
    parts.push(blockToPart(block));
  }
  return parts;
}

function blockToPart(block: Block): ContentPart {
  if (block.type === "image" || (block.type === "file" && isImageMime(mimeOf(block)))) {
    const url = imageUrlOf(block);
    if (url !== null) {
      const detail = (block.metadata as Block | undefined)?.detail ?? block.detail;
      return { type: "image_url", image_url: typeof detail === "string" ? { url, detail } : { url } };
    }
  }
  // Text parts and anything else (reasoning, audio, files) pass through as they are.
  return copyBlock(block) as ContentPart;
}

function mimeOf(block: Block): string | undefined {
  const mime = block.mimeType ?? block.mime_type;
  return typeof mime === "string" ? mime : undefined;
}

function isImageMime(mime: string | undefined): boolean {
  return typeof mime === "string" && mime.startsWith("image/");
}

/** The URL (or data URL) of a standard image block, or null when it only has a provider file id. */
function imageUrlOf(block: Block): string | null {
  if (typeof block.url === "string") return block.url;
  if (typeof block.data === "string") return `data:${mimeOf(block) ?? "image/png"};base64,${block.data}`;
  return null;
}

/** OpenAI content → LangChain content: parts are LangChain-compatible as they are (copied). */
export function contentFromOpenAI(content: unknown): string | Block[] {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.filter((p) => p && typeof p === "object").map((p) => copyBlock(p as Block));
}

function copyBlock(block: Block): Block {
  return structuredClone(block);
}
