import type { Usage } from "@context-engine/core";
import { normalizeUsage } from "@context-engine/core";

function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/**
 * The SDK's usage as the contract's `Usage`. Reads both the call-level
 * `LanguageModelUsage` (`inputTokens` number, `inputTokenDetails`, v6's
 * `cachedInputTokens`) and the provider-level usage of middleware results
 * (`inputTokens: { total, cacheRead, cacheWrite }`). The SDK counts cached
 * tokens inside `inputTokens`, as OpenAI counts them inside `prompt_tokens`.
 */
export function toEngineUsage(raw: unknown): Usage {
  const u = (raw ?? {}) as Record<string, unknown>;
  const input = u.inputTokens;
  const output = u.outputTokens;
  const inObj = input && typeof input === "object" ? (input as Record<string, unknown>) : null;
  const outObj = output && typeof output === "object" ? (output as Record<string, unknown>) : null;
  const inDetails = (u.inputTokenDetails ?? {}) as Record<string, unknown>;
  const outDetails = (u.outputTokenDetails ?? {}) as Record<string, unknown>;
  const prompt = inObj ? num(inObj.total) : num(input);
  const completion = outObj ? num(outObj.total) : num(output);
  return normalizeUsage({
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: inObj || outObj ? undefined : num(u.totalTokens),
    input_tokens: prompt,
    output_tokens: completion,
    cache_read_tokens: inObj ? num(inObj.cacheRead) : (num(inDetails.cacheReadTokens) ?? num(u.cachedInputTokens)),
    cache_write_tokens: inObj ? num(inObj.cacheWrite) : num(inDetails.cacheWriteTokens),
    reasoning_tokens: outObj ? num(outObj.reasoning) : (num(outDetails.reasoningTokens) ?? num(u.reasoningTokens)),
  });
}
