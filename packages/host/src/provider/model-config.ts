import { DEFAULT_CONTEXT_LENGTH, contextLengthFor } from "@context-engine/plugin-loader";
import { z } from "zod";

export { DEFAULT_CONTEXT_LENGTH };

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

/** The context window of a model from the plugin loader's built-in table, else 128,000 (one table for every package). */
export function defaultContextLength(model: string): number {
  return contextLengthFor(model);
}

/**
 * The main model's settings from config.yaml's `model:` block, with the
 * usual environment fallbacks (OPENAI_MODEL, OPENAI_BASE_URL,
 * OPENAI_API_KEY). Config wins over the environment, as in the plugin
 * loader's `config check`; leave `model.api_key` out to use the variable.
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
  const apiKey = c.api_key ?? envKey;
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
      apiKey: c.api_key ? `${source}: model.api_key` : envKey ? "env OPENAI_API_KEY" : null,
      contextLength: c.context_length ? `${source}: model.context_length` : "built-in table",
    },
  };
}
