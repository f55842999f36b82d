import { normalizeUsage, type Usage } from "@context-engine/core";

function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * A provider's raw `usage` object (OpenAI / OpenRouter shape, with nested
 * `prompt_tokens_details` and `completion_tokens_details`) as a core `Usage`,
 * or null when it carries no figures.
 */
export function usageFromProvider(raw: unknown): Usage | null {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return null;
  const src = raw as Record<string, unknown>;
  if (num(src.prompt_tokens) === undefined && num(src.completion_tokens) === undefined && num(src.input_tokens) === undefined) {
    return null;
  }
  const usage = normalizeUsage(src);
  const promptDetails = src.prompt_tokens_details as Record<string, unknown> | undefined;
  const completionDetails = src.completion_tokens_details as Record<string, unknown> | undefined;
  const cached = num(promptDetails?.cached_tokens);
  if (cached !== undefined && usage.cache_read_tokens === undefined) usage.cache_read_tokens = cached;
  const cacheWrite = num(promptDetails?.cache_write_tokens);
  if (cacheWrite !== undefined && usage.cache_write_tokens === undefined) usage.cache_write_tokens = cacheWrite;
  const reasoning = num(completionDetails?.reasoning_tokens);
  if (reasoning !== undefined && usage.reasoning_tokens === undefined) usage.reasoning_tokens = reasoning;
  return usage;
}
