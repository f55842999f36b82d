import type { Message } from "@context-engine/core";

/**
 * Prompt-cache breakpoints (`cache_control: { type: "ephemeral" }`), as
 * Anthropic models behind OpenAI-compatible gateways read them. OpenAI's own
 * models cache automatically and reject nothing, but gain nothing either, so
 * `auto` adds breakpoints only for Claude-family models.
 */
export type PromptCacheMode = "auto" | "on" | "off";

/** Breakpoints on the system prompt and the last three other messages ("system and 3"). */
const TAIL_BREAKPOINTS = 3;

export function promptCacheEnabled(mode: PromptCacheMode, model: string): boolean {
  if (mode === "on") return true;
  if (mode === "off") return false;
  return /claude|anthropic/i.test(model);
}

function markMessage(message: Message): Message {
  const m = message as Record<string, unknown>;
  const marker = { type: "ephemeral" };
  const content = m.content;
  if (typeof content === "string" && content.length > 0) {
    return { ...m, content: [{ type: "text", text: content, cache_control: marker }] } as unknown as Message;
  }
  if (Array.isArray(content) && content.length > 0) {
    const parts = content.slice();
    const last = parts[parts.length - 1];
    parts[parts.length - 1] = { ...(last as object), cache_control: marker };
    return { ...m, content: parts } as unknown as Message;
  }
  // No content to carry the marker (an assistant message with only tool calls).
  return { ...m, cache_control: marker } as unknown as Message;
}

/**
 * Derive cache breakpoints on the FINAL request list (after selection and the
 * sanitisers), so a selected list gets its own breakpoints. Returns a new list
 * with copies of the marked messages; the input is not touched.
 */
export function applyCacheBreakpoints(messages: Message[]): { messages: Message[]; count: number } {
  if (messages.length === 0) return { messages, count: 0 };
  const out = messages.slice();
  let count = 0;
  const first = out[0]!;
  if (first.role === "system" || first.role === "developer") {
    out[0] = markMessage(first);
    count++;
  }
  let remaining = TAIL_BREAKPOINTS;
  for (let i = out.length - 1; i >= 1 && remaining > 0; i--) {
    const m = out[i]!;
    if (m.role === "system" || m.role === "developer") continue;
    out[i] = markMessage(m);
    count++;
    remaining--;
  }
  return { messages: out, count };
}
