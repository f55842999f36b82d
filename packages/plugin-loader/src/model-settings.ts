import type { ContextEngineConfig } from "./config/schema.js";

/** The window assumed when neither the config nor the table knows the model. */
export const DEFAULT_CONTEXT_LENGTH = 128_000;

/**
 * Context windows of common models, matched as substrings of the model name
 * (longest key wins). Set `model.context_length` for anything else.
 */
export const KNOWN_CONTEXT_LENGTHS: Readonly<Record<string, number>> = Object.freeze({
  "gpt-3.5-turbo": 16_385,
  "gpt-4": 8_192,
  "gpt-4-32k": 32_768,
  "gpt-4o": 128_000,
  "gpt-4o-mini": 128_000,
  "gpt-4-turbo": 128_000,
  "gpt-4.1": 1_047_576,
  "gpt-4.5": 128_000,
  "gpt-5": 400_000,
  "gpt-oss": 131_072,
  o1: 200_000,
  "o1-mini": 128_000,
  o3: 200_000,
  "o3-mini": 200_000,
  "o4-mini": 200_000,
  "claude-2": 100_000,
  "claude-3": 200_000,
  "claude-sonnet": 200_000,
  "claude-opus": 200_000,
  "claude-haiku": 200_000,
  "gemini-1.5": 1_048_576,
  "gemini-2": 1_048_576,
  "gemma-2": 8_192,
  "gemma-3": 131_072,
  "llama-3": 8_192,
  "llama-3.1": 131_072,
  "llama-3.2": 131_072,
  "llama-3.3": 131_072,
  "llama-4": 1_048_576,
  "mistral-large": 128_000,
  "mistral-small": 32_768,
  "mixtral": 32_768,
  "codestral": 256_000,
  "qwen2.5": 131_072,
  "qwen3": 131_072,
  "deepseek": 128_000,
  "phi-3": 128_000,
  "phi-4": 16_384,
  "command-r": 128_000,
  "grok": 131_072,
});

/** A window from the table: `known` false when no key matched and the default is a guess. */
export interface ContextLengthLookup {
  contextLength: number;
  known: boolean;
  /** The table key that matched, or null. */
  matched: string | null;
}

/** The table's longest key found in `model` (case-insensitive), else the default marked as a guess. */
export function lookupContextLength(model: string | null | undefined): ContextLengthLookup {
  if (!model) return { contextLength: DEFAULT_CONTEXT_LENGTH, known: false, matched: null };
  const lower = model.toLowerCase();
  let best: [string, number] | null = null;
  for (const [key, value] of Object.entries(KNOWN_CONTEXT_LENGTHS)) {
    if (lower.includes(key) && (!best || key.length > best[0].length)) best = [key, value];
  }
  return best ? { contextLength: best[1], known: true, matched: best[0] } : { contextLength: DEFAULT_CONTEXT_LENGTH, known: false, matched: null };
}

/** The context window for `model`: the table's longest matching key, else the default. */
export function contextLengthFor(model: string | null | undefined): number {
  return lookupContextLength(model).contextLength;
}

export interface ModelSettings {
  /** The main model's name; null when neither config nor `OPENAI_MODEL` names one. */
  model: string | null;
  provider: string | null;
  baseUrl: string | null;
  apiKey: string | null;
  contextLength: number;
}

/**
 * The main model from `model:` and the environment: a set `OPENAI_MODEL`, `OPENAI_BASE_URL` or
 * `OPENAI_API_KEY` overrides the file (the file holds the defaults, the environment the exception).
 */
export function resolveModelSettings(
  config: Pick<ContextEngineConfig, "model">,
  env: Record<string, string | undefined> = process.env,
): ModelSettings {
  const m = config.model ?? {};
  const model = nonEmpty(env.OPENAI_MODEL) ?? m.name ?? null;
  return {
    model,
    provider: m.provider ?? null,
    baseUrl: nonEmpty(env.OPENAI_BASE_URL) ?? m.base_url ?? null,
    apiKey: nonEmpty(env.OPENAI_API_KEY) ?? m.api_key ?? null,
    contextLength: m.context_length ?? m.context_window ?? contextLengthFor(model),
  };
}

function nonEmpty(value: string | undefined): string | null {
  const v = value?.trim();
  return v ? v : null;
}
