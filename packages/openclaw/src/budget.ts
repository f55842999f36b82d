import type { ContextEngine } from "@context-engine/core";
import { inputBudgetTokens, toolSchemasTokens } from "@context-engine/core";
import type { OcRuntimeSettings } from "./openclaw-types.js";

/**
 * The input budget engines get as `budgetTokens` in an assemble (core's contract): what OpenClaw will
 * let the messages take. OpenClaw's own budget (`tokenBudget`: its window less its output reserve and
 * its prompt) less the engine's tool schemas, which this adapter registers and OpenClaw sends with every
 * request (its overflow check counts tool schemas too). Without a usable budget (absent, or OpenClaw's
 * "no room by my reserve policy" sentinel): the window less the output reserve OpenClaw reports
 * (`runtimeSettings.limits.maxOutputTokens`, capped at half the window) and those tool schemas. 0 when
 * nothing is known.
 */
export function assembleInputBudget(engine: ContextEngine, budget: number | undefined, window: number | undefined, settings: OcRuntimeSettings | undefined): number {
  const tools = engineToolsTokens(engine);
  if (budget !== undefined) return Math.max(1, budget - tools);
  const reserve = settings?.limits?.maxOutputTokens;
  return inputBudgetTokens(window ?? 0, typeof reserve === "number" && reserve > 0 ? reserve : 0, tools);
}

function engineToolsTokens(engine: ContextEngine): number {
  try {
    const schemas = engine.getToolSchemas();
    return Array.isArray(schemas) ? toolSchemasTokens(schemas.map((s) => ({ type: "function", function: s }))) : 0;
  } catch {
    // engineTools reports a throwing getToolSchemas; no tools are registered then.
    return 0;
  }
}
