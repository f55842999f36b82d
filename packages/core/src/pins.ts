import type { Message } from "./messages.js";

/**
 * Pins: text a user asked to keep verbatim in every request of a
 * conversation. A host puts them in one system message, the pins block,
 * right after the system prompt; engines see it as part of the protected
 * head and must hand it back unchanged, in place (see the README, "Pins").
 */
export const PINS_HEADER = "[Pinned by the user: kept verbatim in every request of this conversation]";

/** One pin as the block carries it. */
export interface PinnedText {
  /** `p1`, `p2`, …: unique within the conversation. */
  id: string;
  text: string;
}

/** Whether a message is a pins block. */
export function isPinsBlock(message: Message): boolean {
  return message.role === "system" && typeof message.content === "string" && message.content.startsWith(PINS_HEADER);
}

/** The one system message holding every pin, in pin order; null when there are none. */
export function pinsBlock(pins: readonly PinnedText[]): Message | null {
  if (pins.length === 0) return null;
  const body = pins.map((p) => `<pin id="${p.id}">\n${p.text}\n</pin>`).join("\n");
  return { role: "system", content: `${PINS_HEADER}\n${body}` };
}

/**
 * The protected head of a list: its leading system (and developer)
 * messages, the pins block among them. Compaction must return them
 * unchanged and first.
 */
export function protectedHead(messages: readonly Message[]): Message[] {
  let i = 0;
  while (i < messages.length && (messages[i]!.role === "system" || messages[i]!.role === "developer")) i++;
  return messages.slice(0, i);
}
