import type { Message } from "@context-engine/core";

/**
 * Deep copy of messages for hand-off to an engine, so nothing an engine does
 * can write through into the persisted conversation. Messages are JSON-like;
 * structuredClone keeps every extra field a provider attached.
 */
export function cloneMessages(messages: readonly Message[]): Message[] {
  return structuredClone(messages as Message[]);
}

export function cloneMessage<T>(message: T): T {
  return message !== null && typeof message === "object" ? structuredClone(message) : message;
}
