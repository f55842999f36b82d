/**
 * The two limits of one request, from the model's window and the output the
 * host reserves for the answer. The reserve is capped at half the window, so
 * a setting meant for a large model never leaves a small one no room at all.
 */
export function requestLimit(contextLength: number, outputReserveTokens: number): number {
  if (!(contextLength > 0)) return 0;
  return contextLength - Math.min(Math.max(0, outputReserveTokens), Math.floor(contextLength / 2));
}

/**
 * The input budget engines are given (`budgetTokens`): what the messages may
 * take once the output reserve and every tool schema sent with the request
 * are subtracted from the window; 0 when the window is unknown.
 */
export function inputBudget(contextLength: number, outputReserveTokens: number, toolsTokens: number): number {
  const limit = requestLimit(contextLength, outputReserveTokens);
  return limit > 0 ? Math.max(1, limit - toolsTokens) : 0;
}
