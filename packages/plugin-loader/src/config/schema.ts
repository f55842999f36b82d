import { z } from "zod";
import { BUILTIN_ENGINE_NAME, ENGINE_NAME_PATTERN } from "../names.js";
import { CompressionSectionSchema } from "./compression-schema.js";

const NAME_HINT = 'not an engine name (lowercase letters, digits, "_" or "-", starting with a letter)';

/** An engine or plugin name; never a path. */
export const EngineNameSchema = z.string().max(64).regex(ENGINE_NAME_PATTERN, NAME_HINT);

/** YAML writes an empty section (`context:`) as null; read it as "not set". */
const section = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === null ? undefined : v), schema);

export const ContextSectionSchema = z.strictObject({
  /** The one active engine; `compressor` when absent. Plugin engines are only active when named here. */
  engine: EngineNameSchema.optional(),
});

export const ModelSectionSchema = z.strictObject({
  name: z.string().min(1).optional(),
  /** Scopes `provider:substring` keys of `compression.model_thresholds`. */
  provider: z.string().min(1).optional(),
  base_url: z.url({ protocol: /^https?$/, error: "not an http(s) URL" }).optional(),
  api_key: z.string().min(1).optional(),
  /** The model's window in tokens: the one name for it. */
  context_length: z.int().positive().optional(),
  /** Accepted and read as `context_length`, with a note (the name several providers use). */
  context_window: z.int().positive().optional(),
  /** How long one model request may take before it fails as a timeout; default 600. */
  request_timeout_seconds: z.number().positive().max(86_400).optional(),
});

export const PluginsSectionSchema = z.strictObject({
  /** Replaces `$CONTEXT_ENGINE_HOME/plugins/context_engine`; `~` and paths relative to config.yaml work. */
  user_dir: z.string().min(1).optional(),
  /**
   * General plugins: module paths (relative to config.yaml) or installed
   * package names whose `register(ctx)` may call `ctx.registerContextEngine`.
   */
  modules: z.array(z.string().min(1)).default([]),
});

/** The reference host's loop settings (read by `@context-engine/host`). */
export const HostSectionSchema = z.strictObject({
  /** Provider requests per user turn before the turn ends. */
  max_iterations: z.int().positive().optional(),
  /** Compaction passes the host may run in one turn. */
  max_compression_attempts: z.int().nonnegative().optional(),
  /** Prompt-cache breakpoints: `auto` adds them for providers known to use them. */
  prompt_cache: z.enum(["auto", "on", "off"]).optional(),
  /** Retries on 429, 5xx and network errors. */
  max_retries: z.int().nonnegative().optional(),
  /** Tokens kept free for the answer: sent as max_tokens, and a request may take the window less this. */
  output_reserve_tokens: z.int().nonnegative().optional(),
  /** End idle sessions (onSessionEnd) after this many seconds; 0 never. */
  session_idle_timeout_seconds: z.number().finite().nonnegative().optional(),
  /** Bounds in ms for each engine call the host awaits; past it the call fails open. 0: no bound. */
  hook_timeouts: z
    .strictObject({
      select_context: z.number().finite().nonnegative().optional(),
      on_turn_complete: z.number().finite().nonnegative().optional(),
      handle_tool_call: z.number().finite().nonnegative().optional(),
      on_session_start: z.number().finite().nonnegative().optional(),
      on_session_end: z.number().finite().nonnegative().optional(),
      on_session_reset: z.number().finite().nonnegative().optional(),
      update_model: z.number().finite().nonnegative().optional(),
      should_compress_preflight: z.number().finite().nonnegative().optional(),
      prune_tool_results_only: z.number().finite().nonnegative().optional(),
    })
    .optional(),
});

/** An engine's own section under `engines.<name>`: a mapping (validated later by the engine). */
const EngineSectionSchema = section(z.record(z.string(), z.unknown()).default({}));

/** The whole config.yaml. Unknown keys are errors, so typos surface. */
export const ContextEngineConfigSchema = z.strictObject({
  context: section(ContextSectionSchema.prefault({})),
  model: section(ModelSectionSchema.prefault({})),
  /** The built-in compressor's block; `model_thresholds` applies to every engine. */
  compression: section(CompressionSectionSchema.prefault({})),
  engines: section(z.record(EngineNameSchema, EngineSectionSchema).default({})),
  plugins: section(PluginsSectionSchema.prefault({})),
  host: section(HostSectionSchema.prefault({})),
  /** The CLI chat's own settings (chat.keep_days, chat.max_chats), validated by @context-engine/cli. */
  chat: section(z.record(z.string(), z.unknown()).optional()),
});

export type ContextEngineConfig = z.output<typeof ContextEngineConfigSchema>;
export type ContextEngineConfigInput = z.input<typeof ContextEngineConfigSchema>;
export type CompressionSection = ContextEngineConfig["compression"];
export type ModelSection = ContextEngineConfig["model"];
export type HostSection = ContextEngineConfig["host"];
export type PluginsSection = ContextEngineConfig["plugins"];

/** The engine `context.engine` selects (default `compressor`). */
export function selectedEngineName(config: Pick<ContextEngineConfig, "context"> | null | undefined): string {
  return config?.context?.engine ?? BUILTIN_ENGINE_NAME;
}

/** A valid config with every default applied (what an absent config.yaml means). */
export function defaultConfig(): ContextEngineConfig {
  return ContextEngineConfigSchema.parse({});
}

/** Keys allowed in each strict section, for "did you mean" hints on unknown keys. */
export function knownConfigKeys(path: readonly PropertyKey[]): readonly string[] | undefined {
  if (path.length === 0) return Object.keys(ContextEngineConfigSchema.shape);
  if (path.length !== 1) return undefined;
  const shapes: Record<string, { shape: Record<string, unknown> }> = {
    context: ContextSectionSchema,
    model: ModelSectionSchema,
    compression: CompressionSectionSchema,
    plugins: PluginsSectionSchema,
  };
  const shape = shapes[String(path[0])]?.shape;
  return shape ? Object.keys(shape) : undefined;
}
