import type { ContextEngine } from "@context-engine/core";
import { inputBudgetTokens, toolSchemasTokens } from "@context-engine/core";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { guarded } from "./bounded.js";

/** What `wrapModelCall` knows of the request: the model, its per-request settings, the tools bound to it. */
export interface BudgetRequest {
  model?: unknown;
  modelSettings?: Record<string, unknown> | undefined;
  tools?: readonly unknown[];
}

/**
 * The input budget of one model request (`budgetTokens` for `compress` and `selectContext`): the engine's
 * window less the output the request reserves (`maxTokens` of the model or of its per-request settings,
 * else `outputReserveTokens`) and every tool schema bound to it (the agent's and the engine's), by core's
 * formula, the one `@context-engine/host` uses. 0 when the window is unknown.
 */
export function requestInputBudget(engine: ContextEngine, request: BudgetRequest, outputReserveTokens: number | undefined): number {
  const window = guarded(() => engine.contextLength, 0).value;
  const contextLength = typeof window === "number" && window > 0 ? window : 0;
  return inputBudgetTokens(contextLength, outputReserveOf(request) ?? outputReserveTokens ?? 0, toolsTokens(request.tools));
}

function outputReserveOf(request: BudgetRequest): number | undefined {
  const settings = request.modelSettings ?? {};
  const model = (request.model ?? {}) as Record<string, unknown>;
  for (const value of [settings.maxTokens, settings.max_tokens, model.maxTokens, model.maxCompletionTokens]) {
    if (typeof value === "number" && Number.isFinite(value) && value > 0) return value;
  }
  return undefined;
}

/** Tokens of the tools as the provider receives them (OpenAI function tools); a tool that cannot be converted counts as its JSON. */
function toolsTokens(tools: readonly unknown[] | undefined): number {
  if (!Array.isArray(tools) || tools.length === 0) return 0;
  const described = tools.map((t) => guarded(() => convertToOpenAITool(t as never) as unknown, t).value);
  return toolSchemasTokens(described);
}
