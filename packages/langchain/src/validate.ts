import { MessageSchema, checkConversation } from "@context-engine/core";
import type { Message } from "@context-engine/core";

/**
 * Why an engine's returned list cannot be used, or null when it can: it must
 * be a non-empty list of valid OpenAI messages and may not break tool pairs
 * that were intact in what the engine was given.
 */
export function rejectionReason(returned: unknown, given: readonly Message[]): string | null {
  if (!Array.isArray(returned)) return `expected a list of messages, got ${returned === null ? "null" : typeof returned}`;
  if (returned.length === 0) return "the list is empty";
  for (let i = 0; i < returned.length; i++) {
    const parsed = MessageSchema.safeParse(returned[i]);
    if (!parsed.success) return `item ${i} is not a valid OpenAI message (${parsed.error.issues[0]?.message ?? "invalid"})`;
  }
  const before = checkConversation(given).length;
  const after = checkConversation(returned);
  if (after.length > before) return `it breaks tool pairs: ${after[0]?.message}`;
  return null;
}
