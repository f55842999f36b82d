import { contentText, isPinsBlock, pinsBlock as corePinsBlock } from "@context-engine/core";
import type { Message, PinnedText } from "@context-engine/core";

export { PINS_HEADER, isPinsBlock } from "@context-engine/core";

/** A pin as the host keeps it. */
export interface Pin extends PinnedText {
  /** When it was pinned (ISO 8601). */
  at: string;
  /** Where it came from when pinned by message reference (`@12`), else absent. */
  ref?: string;
}

/** The one system message holding every pin, in pin order; null when there are none. */
export function pinsBlock(pins: readonly Pin[]): Message | null {
  return corePinsBlock(pins.map(({ id, text }) => ({ id, text })));
}

/** Leading system messages other than the pins block: the system prompt the block follows. */
function headLength(messages: readonly Message[]): number {
  let i = 0;
  while (i < messages.length && messages[i]!.role === "system" && !isPinsBlock(messages[i]!)) i++;
  return i;
}

/**
 * The list with exactly one pins block (the current one) right after the
 * system prompt, or none when there are no pins: whatever an engine did to
 * the block, the host's copy wins. `changed`: the list had to change.
 */
export function placePins(messages: readonly Message[], block: Message | null): { messages: Message[]; changed: boolean } {
  const without = messages.filter((m) => !isPinsBlock(m));
  const head = headLength(without);
  const out = block ? [...without.slice(0, head), block, ...without.slice(head)] : without;
  const changed = out.length !== messages.length || out.some((m, i) => m.role !== messages[i]!.role || contentText(m.content) !== contentText(messages[i]!.content));
  return { messages: out, changed };
}
