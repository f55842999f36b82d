/**
 * Token budgets derived from the window. Kept in one place so the planner,
 * the prompt and the fit pass agree on the numbers.
 */

/** Tail budget when the window is unknown. */
const DEFAULT_TAIL_BUDGET = 10_000;

/**
 * Tokens of recent history kept verbatim: 2.5% of the window clamped to
 * 10k–25k, but never more than a fifth of the window (small windows) nor more
 * than a third of the trigger, so a compaction always leaves headroom.
 */
export function tailTokenBudget(contextLength: number, thresholdTokens: number, configured?: number | null): number {
  let budget = configured ?? (contextLength > 0 ? clamp(Math.floor(contextLength * 0.025), 10_000, 25_000) : DEFAULT_TAIL_BUDGET);
  if (contextLength > 0) budget = Math.min(budget, Math.floor(contextLength * 0.2));
  if (thresholdTokens > 0) budget = Math.min(budget, Math.floor(thresholdTokens / 3));
  return Math.max(1, budget);
}

/** Largest summary we ask for: 5% of the window up to 10k, at least 12% of the trigger for small windows. */
export function maxSummaryTokens(contextLength: number, thresholdTokens: number): number {
  if (contextLength <= 0) return 4_000;
  const byWindow = Math.floor(contextLength * 0.05);
  const byTrigger = thresholdTokens > 0 ? Math.floor(thresholdTokens * 0.12) : 0;
  return Math.max(200, Math.min(10_000, Math.max(byWindow, byTrigger)));
}

/** Summary length for a middle of `middleTokens`: `ratio` of it, within [min(1000, max), max]. */
export function summaryTokenBudget(middleTokens: number, ratio: number, contextLength: number, thresholdTokens: number): number {
  const max = maxSummaryTokens(contextLength, thresholdTokens);
  const min = Math.min(1_000, max);
  return clamp(Math.floor(middleTokens * ratio), min, max);
}

/**
 * How much larger real prompts are than our estimate of the messages (tool
 * schemas, tokenizer differences). Only ever inflates, and at most doubles,
 * so a stale or odd figure from the host cannot make us overshoot.
 */
export function calibrationRatio(currentTokens: number | undefined, estimate: number): number {
  if (!currentTokens || currentTokens <= 0 || estimate <= 0) return 1;
  return clamp(currentTokens / estimate, 1, 2);
}

export function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
