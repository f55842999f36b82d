import type { Message, TurnCompleteMeta } from "@context-engine/core";
import type { TurnIdentity } from "./turn.js";

/** The host's turn identity, when it gave a usable one (a key and the turn's messages). */
export function turnIdentity(meta: TurnCompleteMeta): TurnIdentity | null {
  const { turnId, turnMessages, messageIds } = meta;
  if (typeof turnId !== "string" || !turnId || !Array.isArray(turnMessages) || !turnMessages.length) return null;
  const ids = Array.isArray(messageIds) && messageIds.every((id) => id === null || typeof id === "string") ? messageIds : undefined;
  return { key: turnId, turnMessages, ...(ids ? { messageIds: ids } : {}) };
}

/** New message objects for the host: it may set fields on what it gets (cache hints) without touching our caches. */
export function fresh(messages: readonly Message[]): Message[] {
  return messages.map((m) => ({ ...m }) as Message);
}
