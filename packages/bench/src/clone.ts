import type { Message } from "@context-engine/core";

/**
 * The deep copy the host makes of the conversation before every
 * `onTurnComplete` and `compress` (packages/host/src/clone.ts is not
 * exported; this is the same plain walk over JSON-like values). Engines get
 * new objects every turn, so per-object caches keyed by identity never hit.
 */
export function deepCopyMessages(messages: readonly Message[]): Message[] {
  const out = new Array<Message>(messages.length);
  for (let i = 0; i < messages.length; i++) out[i] = copyValue(messages[i]) as Message;
  return out;
}

function copyValue(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(copyValue);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = copyValue((value as Record<string, unknown>)[key]);
  return out;
}
