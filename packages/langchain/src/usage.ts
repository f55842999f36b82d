import { isPlainObject, normalizeUsage } from "@context-engine/core";
import type { Usage } from "@context-engine/core";

type Obj = Record<string, unknown>;

const obj = (value: unknown): Obj => (value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Obj) : {});
const isCount = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value) && value >= 0;

/**
 * The usage of one model response in the contract's shape, or null when the
 * response carries none (a model that reports nothing must not reset the
 * engine's figures to zero). Reads LangChain's `usage_metadata` (input tokens
 * include cached ones; `cache_read`/`cache_creation`, `reasoning` details),
 * then older `response_metadata.tokenUsage`, then a raw OpenAI `usage`.
 * core's `normalizeUsage` drops every figure that is not a finite count.
 */
export function usageFromResponse(message: { usage_metadata?: unknown; response_metadata?: unknown }): Usage | null {
  const meta = message.usage_metadata;
  if (isPlainObject(meta) && isCount(meta.input_tokens) && isCount(meta.output_tokens)) {
    const input = obj(meta.input_token_details);
    const output = obj(meta.output_token_details);
    return normalizeUsage({
      prompt_tokens: meta.input_tokens,
      completion_tokens: meta.output_tokens,
      total_tokens: meta.total_tokens,
      input_tokens: meta.input_tokens,
      output_tokens: meta.output_tokens,
      cache_read_tokens: input.cache_read,
      cache_write_tokens: input.cache_creation,
      reasoning_tokens: output.reasoning,
    });
  }
  const response = obj(message.response_metadata);
  const legacy = obj(response.tokenUsage);
  if (isCount(legacy.promptTokens) && isCount(legacy.completionTokens)) {
    return normalizeUsage({ prompt_tokens: legacy.promptTokens, completion_tokens: legacy.completionTokens, total_tokens: legacy.totalTokens });
  }
  const raw = obj(response.usage);
  if (isCount(raw.prompt_tokens) && isCount(raw.completion_tokens)) {
    return normalizeUsage({
      prompt_tokens: raw.prompt_tokens,
      completion_tokens: raw.completion_tokens,
      total_tokens: raw.total_tokens,
      cache_read_tokens: obj(raw.prompt_tokens_details).cached_tokens,
      reasoning_tokens: obj(raw.completion_tokens_details).reasoning_tokens,
    });
  }
  return null;
}
