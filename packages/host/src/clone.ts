import type { Message } from "@context-engine/core";

/**
 * Deep copy of messages for hand-off to an engine, so nothing an engine does
 * can write through into the persisted conversation. Messages are JSON-like
 * (plain objects, arrays, primitives); those are copied by a plain recursive
 * walk, a few times faster than structuredClone on long conversations. Any
 * other object inside (a Date, a Map, a class instance) goes through
 * structuredClone so it is still a real copy.
 */
export function cloneMessages(messages: readonly Message[]): Message[] {
  const out = new Array<Message>(messages.length);
  for (let i = 0; i < messages.length; i++) out[i] = cloneValue(messages[i]) as Message;
  return out;
}

export function cloneMessage<T>(message: T): T {
  return cloneValue(message) as T;
}

function cloneValue(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneValue(value[i]);
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    setOwnField(out, key, cloneValue((value as Record<string, unknown>)[key]));
  }
  return out;
}

/** `out[key] = value`, except that an own "__proto__" key (JSON.parse makes those) stays a plain field. */
export function setOwnField(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}
