import { defaultTokenCounter } from "@context-engine/core";
import type { Message } from "@context-engine/core";

/** How many times a result over its budget is fitted again (each with the budget cut by the overshoot). */
const REFITS = 3;

/**
 * Fit an engine's result to the budget as OpenClaw's side counts it. An engine fits to its own token
 * count (LCM counts stored rows, others count text), which can be under the budget while the adapter's
 * count of the same list, the one OpenClaw is told in `estimatedTokens`, is over it (a real run: 9,085
 * against 8,800). The stricter count wins: while the result is over `budget` by the adapter's count,
 * `again` is asked for a result at a budget cut by the overshoot (or in proportion to it, whichever cuts
 * more, less 1 %), so the gap between the two counts is measured on this very list rather than guessed. A retry that does not shrink the result ends
 * it; the best result is returned either way (never worse than the engine's own).
 */
export async function fitToCount(first: Message[], budget: number, again: (target: number) => Promise<Message[] | null>): Promise<Message[]> {
  let best = first;
  let measured = defaultTokenCounter.countMessages(best);
  let target = budget;
  for (let i = 0; i < REFITS && budget > 0 && measured > budget; i++) {
    // The gap can be a fixed overhead (cut by the overshoot) or a ratio (cut in proportion): the larger cut.
    const fixed = target - (measured - budget);
    const ratio = Math.floor((target * budget) / measured);
    const cut = fixed > 0 ? Math.min(fixed, ratio) : ratio;
    target = Math.max(1, Math.floor(cut * 0.99));
    const next = await again(target);
    if (!next) break;
    const size = defaultTokenCounter.countMessages(next);
    if (size >= measured) break;
    best = next;
    measured = size;
  }
  return best;
}
