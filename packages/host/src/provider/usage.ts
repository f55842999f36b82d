import type { Usage } from "@context-engine/core";
import type { ProviderUsage } from "./response-schema.js";

const n = (v: number | null | undefined): number | undefined => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined);

/**
 * Provider usage → the canonical usage an engine receives.
 *
 * - classic figures as reported (`total_tokens` defaults to the sum);
 * - `cache_read_tokens` from `prompt_tokens_details.cached_tokens` (or an
 *   Anthropic-style `cache_read_input_tokens`);
 * - `cache_write_tokens` from `prompt_tokens_details.cache_write_tokens` /
 *   `cache_creation_input_tokens`;
 * - `reasoning_tokens` from `completion_tokens_details.reasoning_tokens`;
 * - `input_tokens` = the prompt tokens that were neither read from nor
 *   written to the cache; `output_tokens` = completion tokens.
 */
export function canonicalUsage(raw: ProviderUsage | null | undefined): Usage | undefined {
  if (!raw) return undefined;
  const prompt = n(raw.prompt_tokens) ?? 0;
  const completion = n(raw.completion_tokens) ?? 0;
  const usage: Usage = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: n(raw.total_tokens) ?? prompt + completion,
  };
  const cacheRead = n(raw.prompt_tokens_details?.cached_tokens) ?? n(raw.cache_read_input_tokens);
  const cacheWrite =
    n(raw.prompt_tokens_details?.cache_write_tokens) ?? n(raw.prompt_tokens_details?.cache_creation_tokens) ?? n(raw.cache_creation_input_tokens);
  const reasoning = n(raw.completion_tokens_details?.reasoning_tokens);
  if (cacheRead !== undefined) usage.cache_read_tokens = cacheRead;
  if (cacheWrite !== undefined) usage.cache_write_tokens = cacheWrite;
  if (reasoning !== undefined) usage.reasoning_tokens = reasoning;
  usage.input_tokens = Math.max(0, prompt - (cacheRead ?? 0) - (cacheWrite ?? 0));
  usage.output_tokens = completion;
  return usage;
}
