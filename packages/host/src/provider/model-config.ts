import { DEFAULT_CONTEXT_LENGTH, contextLengthFor, lookupContextLength, type ContextLengthLookup } from "@context-engine/plugin-loader";
import { z } from "zod";

export { DEFAULT_CONTEXT_LENGTH, lookupContextLength, type ContextLengthLookup };

/** The request timeout when `model.request_timeout_seconds` is not set. */
export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 600;

/** The `model:` block of config.yaml. */
export const ModelConfigSchema = z.looseObject({
  name: z.string().min(1, "a model name").optional(),
  provider: z.string().min(1).optional(),
  base_url: z.url({ message: "an http(s) URL" }).optional(),
  api_key: z.string().min(1).optional(),
  context_length: z.number().int().positive().optional(),
  context_window: z.number().int().positive().optional(),
  request_timeout_seconds: z.number().positive().max(86_400).optional(),
});
export type ModelConfig = z.infer<typeof ModelConfigSchema>;

export interface ResolvedModelConfig {
  model: string;
  provider: string | undefined;
  baseURL: string | undefined;
  apiKey: string | undefined;
  contextLength: number;
  /** False when the window is the default for a model the table does not know (a guess). */
  contextLengthKnown: boolean;
  /** `model.request_timeout_seconds` in ms, else 10 minutes. */
  requestTimeoutMs: number;
  /** Where each value came from, for `config check` and error messages. */
  sources: { model: string; baseURL: string | null; apiKey: string | null; contextLength: string };
}

/** The context window of a model from the plugin loader's built-in table, else 128,000 (one table for every package). */
export function defaultContextLength(model: string): number {
  return contextLengthFor(model);
}

/**
 * The main model's settings from config.yaml's `model:` block and the usual
 * environment variables (OPENAI_MODEL, OPENAI_BASE_URL, OPENAI_API_KEY).
 * A set variable overrides the file, as in most tools and in the plugin
 * loader: the file holds the defaults, the environment the exception.
 * `sources` says where each value came from.
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
  const model = envModel ?? c.name;
  if (!model) {
    throw new TypeError(`${source}: no model configured: set model.name in ${source} or the OPENAI_MODEL environment variable`);
  }
  const envBase = nonEmpty(env.OPENAI_BASE_URL);
  if (envBase !== undefined && !/^https?:\/\//i.test(envBase)) {
    throw new TypeError(`OPENAI_BASE_URL: expected an http(s) URL, got ${JSON.stringify(envBase)}`);
  }
  const baseURL = envBase ?? c.base_url;
  const envKey = nonEmpty(env.OPENAI_API_KEY);
  const apiKey = envKey ?? c.api_key;
  if (c.context_length !== undefined && c.context_window !== undefined && c.context_length !== c.context_window) {
    throw new TypeError(`${source}: model.context_length (${c.context_length}) and model.context_window (${c.context_window}) disagree; set one of them`);
  }
  const configured = c.context_length ?? c.context_window;
  const lookup = lookupContextLength(model);
  const contextLength = configured ?? lookup.contextLength;
  return {
    model,
    provider: c.provider,
    baseURL,
    apiKey,
    contextLength,
    contextLengthKnown: configured !== undefined || lookup.known,
    requestTimeoutMs: Math.round((c.request_timeout_seconds ?? DEFAULT_REQUEST_TIMEOUT_SECONDS) * 1000),
    sources: {
      model: envModel ? "env OPENAI_MODEL" : `${source}: model.name`,
      baseURL: envBase ? "env OPENAI_BASE_URL" : c.base_url ? `${source}: model.base_url` : null,
      apiKey: envKey ? "env OPENAI_API_KEY" : c.api_key ? `${source}: model.api_key` : null,
      contextLength:
        c.context_length !== undefined
          ? `${source}: model.context_length`
          : c.context_window !== undefined
            ? `${source}: model.context_window`
            : lookup.known
              ? `built-in table (${lookup.matched})`
              : `a guess: ${model} is not in the built-in table`,
    },
  };
}
