import { defaultTokenCounter } from "@context-engine/core";
import { toOpenAiMessage } from "./convert-to-openai.js";
import type { OcAgentMessage } from "./openclaw-types.js";

/**
 * OpenClaw's own runs (memory flush, heartbeat effects) are not the user's conversation, so the engine never
 * sees them, but OpenClaw still asks this engine to assemble their context: a memory flush hands over the
 * whole session transcript, which on a small window is more than the budget it gives (a real run sent
 * ~25.5k tokens on a 24k window). Such a list is cut to its newest whole turns that fit the budget (a cut
 * starts at a user message, so tool calls keep their results); the newest turn is kept even when it alone
 * is over. OpenClaw's own message objects are returned, nothing is converted or stored.
 */
export function fitHostInternal(messages: readonly OcAgentMessage[], budget: number | undefined): OcAgentMessage[] {
  if (budget === undefined || messages.length === 0) return messages as OcAgentMessage[];
  const sizes = messages.map((m) => {
    const converted = toOpenAiMessage(m);
    return converted ? defaultTokenCounter.countMessage(converted) : 0;
  });
  const after = new Array<number>(sizes.length + 1).fill(0);
  for (let i = sizes.length - 1; i >= 0; i--) after[i] = after[i + 1]! + sizes[i]!;
  if (after[0]! <= budget) return messages as OcAgentMessage[];
  // A cut starts a turn (a user message), so tool calls keep their results: the oldest such start that fits.
  const starts = messages.flatMap((m, i) => (m?.role === "user" ? [i] : []));
  const fits = starts.find((i) => after[i]! <= budget);
  const cut = fits ?? starts.at(-1) ?? 0;
  return messages.slice(cut) as OcAgentMessage[];
}
