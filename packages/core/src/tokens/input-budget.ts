import { estimateTextTokens } from "./estimator.js";

/**
 * What one request may hold: the model's window less the output reserved for the answer. The reserve is
 * capped at half the window, so a setting meant for a large model never leaves a small one no room at all.
 * 0 when the window is unknown.
 */
export function requestLimitTokens(contextLength: number, outputReserveTokens: number): number {
  if (!(contextLength > 0)) return 0;
  return contextLength - Math.min(Math.max(0, outputReserveTokens || 0), Math.floor(contextLength / 2));
}

/**
 * The input budget a host gives engines as `budgetTokens`: the window less the output reserve and every
 * tool schema sent with the request (`toolsTokens`), at least 1; 0 when the window is unknown.
 */
export function inputBudgetTokens(contextLength: number, outputReserveTokens: number, toolsTokens: number): number {
  const limit = requestLimitTokens(contextLength, outputReserveTokens);
  return limit > 0 ? Math.max(1, limit - Math.max(0, toolsTokens || 0)) : 0;
}

/** Tokens the tool definitions sent with a request take (their JSON, as a provider receives it); 0 for none. */
export function toolSchemasTokens(tools: readonly unknown[] | null | undefined): number {
  if (!Array.isArray(tools) || tools.length === 0) return 0;
  try {
    return estimateTextTokens(JSON.stringify(tools));
  } catch {
    // A definition that does not serialise is not sent as it is either: count what can be read of it.
    return estimateTextTokens(tools.map((t) => String((t as { name?: unknown })?.name ?? "")).join(" "));
  }
}
