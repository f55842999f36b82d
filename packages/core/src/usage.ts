import { z } from "zod";

/** Non-negative integer token figure; providers sometimes send floats or nulls. */
const tokens = z.number().finite().nonnegative();

/**
 * Usage reported after every LLM call. The three classic figures are always
 * present; the canonical buckets are filled when the provider reports them.
 */
export const UsageSchema = z.looseObject({
  prompt_tokens: tokens,
  completion_tokens: tokens,
  total_tokens: tokens,
  input_tokens: tokens.optional(),
  output_tokens: tokens.optional(),
  cache_read_tokens: tokens.optional(),
  cache_write_tokens: tokens.optional(),
  reasoning_tokens: tokens.optional(),
});

export type Usage = z.infer<typeof UsageSchema>;

/** An all-zero usage, as the host passes when a response carried none. */
export const EMPTY_USAGE: Usage = Object.freeze({
  prompt_tokens: 0,
  completion_tokens: 0,
  total_tokens: 0,
}) as Usage;

function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * Normalise a usage-like object (possibly partial, possibly `{}`) into a
 * `Usage`. Missing classic figures become 0, `total_tokens` defaults to the
 * sum, and unknown or invalid optional buckets are dropped.
 */
export function normalizeUsage(raw: unknown): Usage {
  const src = raw && typeof raw === "object" ? (raw as Record<string, unknown>) : {};
  const prompt = num(src.prompt_tokens) ?? num(src.input_tokens) ?? 0;
  const completion = num(src.completion_tokens) ?? num(src.output_tokens) ?? 0;
  const usage: Usage = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: num(src.total_tokens) ?? prompt + completion,
  };
  for (const key of [
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
  ] as const) {
    const v = num(src[key]);
    if (v !== undefined) usage[key] = v;
  }
  return usage;
}
