import type { ContextEngine } from "@context-engine/core";
import { inputBudgetTokens, toolSchemasTokens } from "@context-engine/core";
import { attempt } from "./guard.js";

/**
 * The input budget the model call will have (`budgetTokens` for `compress` and `selectContext`): the
 * engine's window less the output the call reserves (`maxOutputTokens`) and every tool definition sent
 * with it, by core's formula, the one `@context-engine/host` uses. 0 when the window is unknown.
 */
export function callInputBudget(engine: ContextEngine, outputReserveTokens: number | undefined, toolsTokens: number): number {
  const window = attempt(() => engine.contextLength);
  const contextLength = window.ok && typeof window.value === "number" && window.value > 0 ? window.value : 0;
  return inputBudgetTokens(contextLength, outputReserveTokens ?? 0, toolsTokens);
}

/** A call's own `maxOutputTokens`, when it is a usable number. */
export function outputReserveOf(params: { maxOutputTokens?: unknown }, fallback: number | undefined): number | undefined {
  const given = params.maxOutputTokens;
  return typeof given === "number" && Number.isFinite(given) && given > 0 ? given : fallback;
}

/** The engine's own tool schemas as a provider receives them (OpenAI function tools). */
export function engineToolsTokens(engine: ContextEngine): number {
  const schemas = attempt(() => engine.getToolSchemas());
  if (!schemas.ok || !Array.isArray(schemas.value)) return 0;
  return toolSchemasTokens(schemas.value.map((s) => ({ type: "function", function: s })));
}

/**
 * Tokens of an AI SDK tool set as the provider receives it: each tool's name, description and input
 * schema as JSON Schema (an AI SDK `jsonSchema(...)`, a Standard Schema with JSON Schema such as zod 4,
 * or a plain JSON Schema object).
 */
export function toolSetTokens(tools: Record<string, unknown> | undefined): number {
  if (!tools || typeof tools !== "object") return 0;
  const described = Object.entries(tools).map(([name, tool]) => {
    const t = (tool ?? {}) as { description?: unknown; inputSchema?: unknown; parameters?: unknown };
    return { type: "function", function: { name, description: typeof t.description === "string" ? t.description : "", parameters: jsonSchemaOf(t.inputSchema ?? t.parameters) } };
  });
  return toolSchemasTokens(described);
}

function jsonSchemaOf(schema: unknown): unknown {
  if (!schema || typeof schema !== "object") return {};
  const s = schema as { jsonSchema?: unknown; "~standard"?: { jsonSchema?: { input?: (o: { target: string }) => unknown } } };
  const read = attempt(() => {
    if (s.jsonSchema && typeof s.jsonSchema === "object") return s.jsonSchema;
    const standard = s["~standard"]?.jsonSchema?.input;
    if (typeof standard === "function") return standard({ target: "draft-07" });
    return schema;
  });
  return read.ok ? read.value : {};
}
