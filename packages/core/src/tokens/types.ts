import type { Message } from "../messages.js";

/** Counts tokens of text and of OpenAI-format messages. */
export interface TokenCounter {
  /** `estimate`, `o200k_base`, … for display. */
  readonly name: string;
  /** Whether counts are exact for some tokenizer (false for heuristics). */
  readonly exact: boolean;
  countText(text: string): number;
  countMessage(message: Message): number;
  countMessages(messages: readonly Message[]): number;
}

/** Fixed per-message framing cost (role, separators), as chat formats add it. */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Rough cost of one image part when the provider does not tell us. */
export const IMAGE_PART_TOKENS = 765;
