import { pathToFileURL } from "node:url";
import type { ContextEngine, EngineInitContext, Logger } from "@context-engine/core";
import type { GeneralPluginSpec } from "./discovery/types.js";
import { describeError } from "./errors.js";
import { findRegister } from "./instantiate.js";
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
): Promise<GeneralPluginsResult> {
  const slot = new EngineSlot(logger);
  const broken: GeneralPluginsResult["broken"] = [];
  for (const plugin of plugins) {
    if (!plugin.entry) {
      broken.push({ plugin, reason: plugin.problem ?? "not found" });
      continue;
    }
    let exports: Record<string, unknown>;
    try {
      exports = (await import(pathToFileURL(plugin.entry).href)) as Record<string, unknown>;
    } catch (error) {
      broken.push({ plugin, reason: `importing ${plugin.entry} failed: ${describeError(error)}` });
      continue;
    }
    const register = findRegister(exports);
    if (!register) {
      broken.push({ plugin, reason: "the module exports no register(ctx) function" });
      continue;
    }
    try {
      await register(createRegistrationContext(plugin.id, slot, base, engineContext));
    } catch (error) {
      const reason = `register(ctx) threw: ${describeError(error)}`;
      logger?.warn(`plugin "${plugin.id}": ${reason}`);
      broken.push({ plugin, reason });
    }
  }
  return { engine: slot.engine, owner: slot.owner, broken, warnings: [...slot.warnings] };
}
