import { MessageSchema, checkConversation, checkList } from "@context-engine/core";
import type { Message } from "@context-engine/core";

export type Accepted = { ok: true; messages: Message[] } | { ok: false; reason: string };

/**
 * Check a list an engine returned. It is first copied into plain JSON data
 * (core's `checkList`, which never throws: a throwing getter, a Proxy trap or
 * a cycle becomes a reason), then must be a non-empty list of valid OpenAI
 * messages that breaks no tool pair that was intact in what the engine was
 * given (`givenProblems`: the problem count of that list) and carries only
 * image/file URLs a provider accepts. The accepted list is the copy.
 */
export function acceptReturned(returned: unknown, givenProblems: number): Accepted {
  const base = checkList(returned);
  if (!base.ok) return base;
  const copy = base.messages;
  for (let i = 0; i < copy.length; i++) {
    const parsed = MessageSchema.safeParse(copy[i]);
    if (!parsed.success) return { ok: false, reason: `item ${i} is not a valid OpenAI message (${parsed.error.issues[0]?.message ?? "invalid"})` };
  }
  const after = checkConversation(copy);
  if (after.length > givenProblems) return { ok: false, reason: `it breaks tool pairs: ${after[0]?.message}` };
  const url = unsendableUrl(copy);
  return url ? { ok: false, reason: url } : base;
}

// A URL scheme other than these (`javascript:`, `file:`, …) is refused; scheme-less data (raw base64) is left to the provider.
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const SENDABLE_SCHEMES = new Set(["http", "https", "data"]);
const sendable = (url: unknown) => typeof url === "string" && SENDABLE_SCHEMES.has((SCHEME.exec(url.trim())?.[1] ?? "data").toLowerCase());

function unsendableUrl(messages: readonly Message[]): string | null {
  for (let i = 0; i < messages.length; i++) {
    const content = messages[i]?.content;
    if (!Array.isArray(content)) continue;
    for (const part of content as unknown[]) {
      const p = part as { type?: unknown; image_url?: { url?: unknown } | string; file?: { file_data?: unknown } };
      const url = p.type === "image_url" ? (typeof p.image_url === "string" ? p.image_url : p.image_url?.url) : p.type === "file" ? p.file?.file_data : undefined;
      if (url !== undefined && !sendable(url)) {
        return `message ${i} has a ${String(p.type)} part whose URL is not http(s) or data: (${String(url).slice(0, 40)})`;
      }
    }
  }
  return null;
}
