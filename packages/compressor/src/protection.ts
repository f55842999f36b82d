import type { Message } from "@context-engine/core";
import { isSummaryMessage, unwrapMergedContent } from "./markers.js";
import type { UnitIndex } from "./units.js";
import { alignForward, rangeTokens } from "./units.js";

/**
 * Which messages a compaction keeps verbatim:
 *
 * - the head: leading system messages plus `protectFirstN` more (the caller
 *   passes 0 after the first compaction so early turns do not fossilise);
 * - the tail: recent units walked newest first within a token budget, with
 *   at least 3 messages (the budget wins over `protectLastN`); tool groups are atomic;
 * - the latest user request: the tail is pulled back to include it when that
 *   stays affordable; otherwise it is "pinned" and restated after the summary.
 */
export interface CompactionPlan {
  /** Messages [0, headEnd) are kept verbatim. */
  headEnd: number;
  /** Messages [tailStart, n) are kept verbatim; [headEnd, tailStart) are summarised. */
  tailStart: number;
  /** The latest user request, or -1 when there is none. */
  latestUser: number;
  /** `latestUser` when it lies in the summarised middle and must be restated, else -1. */
  pinned: number;
}

export interface PlanParams {
  messages: readonly Message[];
  index: UnitIndex;
  protectFirstN: number;
  protectLastN: number;
  /** Preferred size of the verbatim tail. */
  tailBudget: number;
  /** Hard cap on head + tail + restated request tokens (Infinity when the window is unknown). */
  keepCap: number;
}

/** Number of leading system/developer messages (always protected). */
export function leadingSystemCount(messages: readonly Message[]): number {
  let i = 0;
  while (i < messages.length && (messages[i]!.role === "system" || messages[i]!.role === "developer")) i++;
  return i;
}

/** Index of the newest user message that carries a request (a standalone summary does not). */
export function findLatestUser(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "user") continue;
    if (isSummaryMessage(m) && unwrapMergedContent(m) === null) continue;
    return i;
  }
  return -1;
}

/** Messages the budgeted tail keeps whatever their size. */
const MIN_TAIL_MESSAGES = 3;

export function planCompaction(p: PlanParams): CompactionPlan | null {
  const { messages, index } = p;
  const n = messages.length;
  if (n === 0) return null;
  const sys = leadingSystemCount(messages);
  let headEnd = Math.min(n, alignForward(index, sys + p.protectFirstN));
  const latestUser = findLatestUser(messages);
  // The latest request is kept whole whatever its size (restated if need be).
  const requestTokens = latestUser >= headEnd ? rangeTokens(index, latestUser, latestUser + 1) : 0;
  // A huge opening message, or a request that leaves no room for the opening
  // messages, must not make compaction impossible: under pressure the head
  // shrinks to the system prompt.
  const openingTokens = rangeTokens(index, sys, headEnd);
  if (openingTokens > p.keepCap / 3 || openingTokens + requestTokens > p.keepCap) headEnd = Math.min(n, alignForward(index, sys));
  const headTokens = rangeTokens(index, 0, headEnd);
  const tailCap = p.keepCap - headTokens;

  // The token budget bounds the tail first (at least 3 messages, whole tool
  // groups); protect_last_n only sizes the minimal tail below.
  let plan = selectTail(p, headEnd, latestUser, p.tailBudget, Math.min(MIN_TAIL_MESSAGES, p.protectLastN), tailCap);
  if (!hasMiddle(plan)) {
    // Everything fits the tail budget (a short conversation compacted by
    // force, or a small window): keep only a minimal tail.
    const available = n - headEnd;
    const minCount = Math.max(1, Math.min(p.protectLastN, Math.floor(available / 2)));
    plan = selectTail(p, headEnd, latestUser, 0, minCount, tailCap);
  }
  return hasMiddle(plan) ? plan : null;
}

function hasMiddle(plan: CompactionPlan): boolean {
  const size = plan.tailStart - plan.headEnd;
  if (size <= 0) return false;
  // A middle that is only the restated request would summarise nothing.
  return !(size === 1 && plan.pinned === plan.headEnd);
}

function selectTail(
  p: PlanParams,
  headEnd: number,
  latestUser: number,
  budget: number,
  minCount: number,
  cap: number,
): CompactionPlan {
  const { index } = p;
  const n = index.length;
  const starts = index.starts;
  let tailStart = n;
  let acc = 0;
  let count = 0;
  // Units taken, newest first, so the tail can be trimmed again below.
  const taken: number[] = [];
  for (let u = starts.length - 1; u >= 0; u--) {
    const s = starts[u]!;
    if (s < headEnd) break;
    const cost = rangeTokens(index, s, tailStart);
    const take =
      taken.length === 0 || (acc + cost <= cap && (acc + cost <= budget || count < minCount));
    if (!take) break;
    taken.push(s);
    acc += cost;
    count += tailStart - s;
    tailStart = s;
  }

  let pinned = -1;
  if (latestUser >= headEnd && latestUser < tailStart) {
    const extra = rangeTokens(index, latestUser, tailStart);
    const soft = Math.max(budget * 1.5, budget + 1);
    if (acc + extra <= Math.min(soft, cap)) {
      tailStart = latestUser;
      acc += extra;
    } else {
      // The active turn is too large to keep whole: summarise its early steps
      // and restate the request itself after the summary.
      pinned = latestUser;
      const pinnedCost = rangeTokens(index, latestUser, latestUser + 1);
      while (taken.length > 1 && acc + pinnedCost > cap) {
        const s = taken.pop()!;
        const next = taken[taken.length - 1]!;
        acc -= rangeTokens(index, s, next);
        tailStart = next;
      }
    }
  }
  return { headEnd, tailStart, latestUser, pinned };
}
