import type { Message } from "@context-engine/core";
import type { Turn } from "./types.js";

/**
 * Split a conversation into user turns: each `user` message starts a turn whose
 * steps are the assistant and tool messages (and any system notes) recorded
 * after it. Messages before the first user message (the system prompt) belong
 * to no turn; `splitSession` returns them as `preamble`.
 */
export function splitTurns(messages: readonly Message[]): Turn[] {
  return splitSession(messages).turns;
}

/** `splitTurns` plus the messages that come before the first user message. */
export function splitSession(messages: readonly Message[]): { preamble: Message[]; turns: Turn[] } {
  const preamble: Message[] = [];
  const turns: Turn[] = [];
  for (const message of messages) {
    if (message.role === "user") turns.push({ user: message, steps: [] });
    else if (turns.length === 0) preamble.push(message);
    else turns[turns.length - 1]!.steps.push(message);
  }
  return { preamble, turns };
}
