import { z } from "zod";

/** The `model:` block of config.yaml. */
export const ModelConfigSchema = z.looseObject({
  name: z.string().min(1, "a model name").optional(),
  provider: z.string().min(1).optional(),
  base_url: z.url({ message: "an http(s) URL" }).optional(),
  api_key: z.string().min(1).optional(),
  context_length: z.number().int().positive().optional(),
});
export type ModelConfig = z.infer<typeof ModelConfigSchema>;

export interface ResolvedModelConfig {
  model: string;
  provider: string | undefined;
  baseURL: string | undefined;
  apiKey: string | undefined;
  contextLength: number;
  /** Where each value came from, for `config check` and error messages. */
  sources: { model: string; baseURL: string | null; apiKey: string | null; contextLength: string };
}

export const DEFAULT_CONTEXT_LENGTH = 128_000;

// Longest matching key wins; keys are substrings of lowercased model names.
const CONTEXT_LENGTHS: Record<string, number> = {
  "gpt-4o": 128_000,
  "gpt-4o-mini": 128_000,
  "gpt-4.1": 1_047_576,
  "gpt-4-turbo": 128_000,
  "gpt-4": 8_192,
  "gpt-3.5-turbo": 16_385,
  "gpt-5": 400_000,
  o1: 200_000,
  o3: 200_000,
  "o4-mini": 200_000,
  claude: 200_000,
  gemini: 1_048_576,
  "deepseek": 128_000,
  "llama-3": 128_000,
  qwen: 131_072,
  mistral: 128_000,
};

/** The context window of a model from a small built-in table, else 128,000. */
export function defaultContextLength(model: string): number {
  const name = model.toLowerCase();
  let best: { len: number; value: number } | null = null;
  for (const [key, value] of Object.entries(CONTEXT_LENGTHS)) {
    if (name.includes(key) && (!best || key.length > best.len)) best = { len: key.length, value };
  }
  return best?.value ?? DEFAULT_CONTEXT_LENGTH;
}

/**
 * The main model's settings from config.yaml's `model:` block, with the
 * usual environment fallbacks (OPENAI_MODEL, OPENAI_BASE_URL,
 * OPENAI_API_KEY). Config wins over the environment, except the API key, where
 * the environment wins so a key never has to live in a file.
 */
export function resolveModelConfig(
  config: unknown,
  env: Record<string, string | undefined> = process.env,
  source = "config.yaml",
): ResolvedModelConfig {
  const parsed = ModelConfigSchema.safeParse(config ?? {});
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  - model.${i.path.join(".")}: expected ${i.message}`);
    throw new TypeError(`${source}: invalid model settings\n${lines.join("\n")}`);
  }
  const c = parsed.data;
  const nonEmpty = (v: string | undefined) => (v && v.trim() ? v.trim() : undefined);
  const envModel = nonEmpty(env.OPENAI_MODEL);
  const model = c.name ?? envModel;
  if (!model) {
    throw new TypeError(`${source}: no model configured: set model.name in ${source} or the OPENAI_MODEL environment variable`);
  }
  const envBase = nonEmpty(env.OPENAI_BASE_URL);
  if (envBase !== undefined && !c.base_url && !/^https?:\/\//i.test(envBase)) {
    throw new TypeError(`OPENAI_BASE_URL: expected an http(s) URL, got ${JSON.stringify(envBase)}`);
  }
  const baseURL = c.base_url ?? envBase;
  const envKey = nonEmpty(env.OPENAI_API_KEY);
  const apiKey = envKey ?? c.api_key;
  const contextLength = c.context_length ?? defaultContextLength(model);
  return {
    model,
    provider: c.provider,
    baseURL,
    apiKey,
    contextLength,
    sources: {
      model: c.name ? `${source}: model.name` : "env OPENAI_MODEL",
      baseURL: c.base_url ? `${source}: model.base_url` : envBase ? "env OPENAI_BASE_URL" : null,
      apiKey: envKey ? "env OPENAI_API_KEY" : c.api_key ? `${source}: model.api_key` : null,
      contextLength: c.context_length ? `${source}: model.context_length` : "built-in table",
    },
  };
}
