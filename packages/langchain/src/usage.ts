import { normalizeUsage } from "@context-engine/core";
import type { Usage } from "@context-engine/core";
import { z } from "zod";

const count = z.number().finite().nonnegative();

/** LangChain's `usage_metadata` (input_tokens include cached ones, as providers report them). */
const UsageMetadataSchema = z.looseObject({
  input_tokens: count,
  output_tokens: count,
  total_tokens: count.optional(),
  input_token_details: z.looseObject({ cache_read: count.optional(), cache_creation: count.optional() }).optional(),
  output_token_details: z.looseObject({ reasoning: count.optional() }).optional(),
});

/** Older providers' `response_metadata.tokenUsage`. */
const TokenUsageSchema = z.looseObject({ promptTokens: count, completionTokens: count, totalTokens: count.optional() });

/** A raw OpenAI `usage` object some integrations keep in response_metadata. */
const RawOpenAIUsageSchema = z.looseObject({
  prompt_tokens: count,
  completion_tokens: count,
  total_tokens: count.optional(),
  prompt_tokens_details: z.looseObject({ cached_tokens: count.optional() }).nullish(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: count.optional() }).nullish(),
});

/**
 * The usage of one model response in the contract's shape, or null when the
 * response carries none (a model that reports nothing must not reset the
 * engine's figures to zero).
 */
export function usageFromResponse(message: { usage_metadata?: unknown; response_metadata?: unknown }): Usage | null {
  const meta = UsageMetadataSchema.safeParse(message.usage_metadata);
  if (meta.success) {
    const u = meta.data;
    return normalizeUsage({
      prompt_tokens: u.input_tokens,
      completion_tokens: u.output_tokens,
      total_tokens: u.total_tokens,
      input_tokens: u.input_tokens,
      output_tokens: u.output_tokens,
      cache_read_tokens: u.input_token_details?.cache_read,
      cache_write_tokens: u.input_token_details?.cache_creation,
      reasoning_tokens: u.output_token_details?.reasoning,
    });
  }
  const response = (message.response_metadata ?? {}) as Record<string, unknown>;
  const legacy = TokenUsageSchema.safeParse(response.tokenUsage);
  if (legacy.success) {
    const u = legacy.data;
    return normalizeUsage({ prompt_tokens: u.promptTokens, completion_tokens: u.completionTokens, total_tokens: u.totalTokens });
  }
  const raw = RawOpenAIUsageSchema.safeParse(response.usage);
  if (raw.success) {
    const u = raw.data;
    return normalizeUsage({
      prompt_tokens: u.prompt_tokens,
      completion_tokens: u.completion_tokens,
      total_tokens: u.total_tokens,
      cache_read_tokens: u.prompt_tokens_details?.cached_tokens,
      reasoning_tokens: u.completion_tokens_details?.reasoning_tokens,
    });
  }
  return null;
}
