import { createStderrLogger } from "@context-engine/core";
import type { EngineFactory, EngineInitContext, Logger } from "@context-engine/core";
import { createOpenClawContextEngine } from "./engine-adapter.js";
import type { OpenClawEngineOptions } from "./engine-adapter.js";
import type { OcFactoryContext, OcPluginApi } from "./openclaw-types.js";
import { SessionEngines } from "./sessions.js";
import { withData } from "./log-data.js";
import { engineTools } from "./tools.js";
import { windowFromOpenClawConfig } from "./window.js";

/** OpenClaw's runtime config-schema object (a JSON Schema plus a validator). */
export interface PluginConfigSchema {
  safeParse(value: unknown): { success: boolean; data?: unknown; error?: { issues?: { path: (string | number)[]; message: string }[] } };
  jsonSchema: Record<string, unknown>;
}

export interface ContextEnginePluginOptions {
  /** Plugin id; also the engine id `plugins.slots.contextEngine` selects. Must match `openclaw.plugin.json`. */
  id: string;
  name: string;
  description: string;
  version?: string;
  /** Builds the engine factory from the plugin's config (`plugins.entries.<id>.config`) and OpenClaw's directories. */
  engine: (setup: { pluginConfig: Record<string, unknown>; host: OcFactoryContext; logger: Logger }) => {
    factory: EngineFactory;
    init?: EngineInitContext;
  };
  configSchema?: PluginConfigSchema;
  /** Names of the engine's tools to register with OpenClaw (also list them in the manifest's `contracts.tools`). */
  toolNames?: string[];
  stepTimeoutMs?: number;
  compactTimeoutMs?: number;
  /** See `OpenClawEngineOptions.historyFromEngine`: the engine's store is shared, so assemble from it. */
  historyFromEngine?: OpenClawEngineOptions["historyFromEngine"];
}

/** The plugin object OpenClaw's loader imports from the module named in `package.json#openclaw.extensions`. */
export interface ContextEnginePluginDefinition {
  id: string;
  name: string;
  description: string;
  configSchema: PluginConfigSchema;
  register(api: OcPluginApi): void;
}

const anyObjectSchema: PluginConfigSchema = {
  safeParse(value) {
    if (value === undefined) return { success: true, data: {} };
    if (!value || typeof value !== "object" || Array.isArray(value)) {
      return { success: false, error: { issues: [{ path: [], message: "expected a config object" }] } };
    }
    return { success: true, data: value };
  },
  jsonSchema: { type: "object", additionalProperties: true },
};

/** OpenClaw's plugin logger takes one string: the data an engine logs (an error with its causes) goes into it. */
function loggerFrom(api: OcPluginApi, fallbackPrefix: string): Logger {
  const l = api.logger;
  if (!l) return createStderrLogger(fallbackPrefix);
  return {
    debug: (m, data) => l.debug?.(withData(m, data)),
    info: (m, data) => l.info(withData(m, data)),
    warn: (m, data) => l.warn(withData(m, data)),
    error: (m, data) => l.error(withData(m, data)),
  };
}

/**
 * An OpenClaw plugin that registers a context-engine engine as an OpenClaw
 * context engine. Sessions (one engine each) are shared by every engine
 * object OpenClaw builds from this registration, so state survives runs.
 */
export function defineContextEnginePlugin(options: ContextEnginePluginOptions): ContextEnginePluginDefinition {
  return {
    id: options.id,
    name: options.name,
    description: options.description,
    configSchema: options.configSchema ?? anyObjectSchema,
    register(api) {
      const logger = loggerFrom(api, options.id);
      let sessions: SessionEngines | null = null;
      let built: ReturnType<ContextEnginePluginOptions["engine"]> | null = null;
      const setup = (host: OcFactoryContext) => {
        built ??= options.engine({ pluginConfig: api.pluginConfig ?? {}, host: host ?? {}, logger });
        sessions ??= new SessionEngines(built.factory, { ...built.init, logger });
        return { built, sessions };
      };
      api.registerContextEngine(options.id, (host) => {
        const { built: b, sessions: shared } = setup(host);
        const engineOptions: OpenClawEngineOptions = {
          id: options.id,
          name: options.name,
          factory: b.factory,
          sessions: shared,
          logger,
          ...(options.version ? { version: options.version } : {}),
          ...(options.stepTimeoutMs ? { stepTimeoutMs: options.stepTimeoutMs } : {}),
          ...(options.compactTimeoutMs ? { compactTimeoutMs: options.compactTimeoutMs } : {}),
          ...(options.historyFromEngine !== undefined ? { historyFromEngine: options.historyFromEngine } : {}),
          // The model's window from OpenClaw's own model config, never a per-call budget.
          contextWindow: windowFromOpenClawConfig(api.config ?? host?.config),
        };
        return createOpenClawContextEngine(engineOptions);
      });
      // The engine's own tools (LCM: lcm_grep, lcm_describe, lcm_expand), per tool run's session.
      if (options.toolNames?.length && typeof api.registerTool === "function") {
        api.registerTool((ctx) => engineTools(setup(ctx).sessions, ctx, options.stepTimeoutMs ?? 30_000, logger), { names: options.toolNames });
      }
    },
  };
}
