import { z } from "zod";

/**
 * What the host reads from a chat-completions response. Loose objects:
 * providers add fields; only what the host relies on is checked.
 */
const count = z.number().finite().nonnegative().nullish();

export const ProviderUsageSchema = z.looseObject({
  prompt_tokens: count,
  completion_tokens: count,
  total_tokens: count,
  prompt_tokens_details: z
    .looseObject({ cached_tokens: count, cache_write_tokens: count, cache_creation_tokens: count, audio_tokens: count })
    .nullish(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: count }).nullish(),
  // Anthropic-compatible gateways report cache figures at the top level.
  cache_read_input_tokens: count,
  cache_creation_input_tokens: count,
});

export const ProviderToolCallSchema = z.looseObject({
  id: z.string().min(1, "a tool call id"),
  type: z.string().optional(),
  function: z.looseObject({
    name: z.string().min(1, "a function name"),
    arguments: z.string().nullish(),
  }),
});

export const ProviderMessageSchema = z.looseObject({
  role: z.string().nullish(),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]).nullish(),
  refusal: z.string().nullish(),
  tool_calls: z.array(ProviderToolCallSchema).nullish(),
});

export const ChatCompletionSchema = z.looseObject({
  id: z.string().optional(),
  model: z.string().nullish(),
  choices: z.array(
    z.looseObject({
      index: z.number().optional(),
      message: ProviderMessageSchema,
      finish_reason: z.string().nullish(),
    }),
  ),
  usage: ProviderUsageSchema.nullish(),
});

export type ChatCompletion = z.infer<typeof ChatCompletionSchema>;
export type ProviderUsage = z.infer<typeof ProviderUsageSchema>;
