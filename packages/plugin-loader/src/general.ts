import type { ContextEngine, EngineInitContext, Logger } from "@context-engine/core";
import type { GeneralPluginSpec } from "./discovery/types.js";
import { describeError } from "./errors.js";
import { findRegister, importModule } from "./instantiate.js";
import { DEFAULT_PLUGIN_TIMEOUT_MS, PluginTimeoutError, withTimeout } from "./timeout.js";
import { createRegistrationContext, EngineSlot } from "./registration.js";

export interface GeneralPluginsResult {
  /** The engine that won the single slot, if any. */
  engine: ContextEngine | null;
  /** The plugin that registered it. */
  owner: string | null;
  /** General plugins that failed, with the reason. */
  broken: Array<{ plugin: GeneralPluginSpec; reason: string }>;
  /** Refused registrations and other non-fatal notes. */
  warnings: string[];
}

/**
 * Run every `plugins.modules` entry's `register(ctx)` in order, sharing one
 * engine slot: the first registration wins, later ones are refused with a
 * warning naming both plugins. Never throws.
 */
export async function runGeneralPlugins(
  plugins: readonly GeneralPluginSpec[],
  base: EngineInitContext,
  engineContext: (name: string) => EngineInitContext,
  logger?: Logger,
  timeoutMs: number = DEFAULT_PLUGIN_TIMEOUT_MS,
): Promise<GeneralPluginsResult> {
  const slot = new EngineSlot(logger);
  const broken: GeneralPluginsResult["broken"] = [];
  for (const plugin of plugins) {
    if (!plugin.entry) {
      broken.push({ plugin, reason: plugin.problem ?? "not found" });
      continue;
    }
    const mod = await importModule(plugin.entry, timeoutMs);
    if (!mod.ok) {
      broken.push({ plugin, reason: mod.reason });
      continue;
    }
    const register = findRegister(mod.exports);
    if (!register) {
      broken.push({ plugin, reason: "the module exports no register(ctx) function" });
      continue;
    }
    try {
      const ctx = createRegistrationContext(plugin.id, slot, base, engineContext);
      await withTimeout(Promise.resolve().then(() => register(ctx)), timeoutMs, "register(ctx)");
    } catch (error) {
      const reason = error instanceof PluginTimeoutError ? error.message : `register(ctx) threw: ${describeError(error)}`;
      logger?.warn(`plugin "${plugin.id}": ${reason}`);
      broken.push({ plugin, reason });
    }
  }
  return { engine: slot.engine, owner: slot.owner, broken, warnings: [...slot.warnings] };
}
