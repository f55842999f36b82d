import { join } from "node:path";
import type { ChatModel, ContextEngine, Logger } from "@context-engine/core";
import { expandPath, listEngines, loadEngine, resolveHome, type EngineListing, type LoadedConfig } from "@context-engine/plugin-loader";
import { ConfigError, UsageError } from "../errors.js";
import { engineSearchPaths } from "../paths.js";
import type { EngineFactory } from "./run.js";

export interface EngineEnvironment {
  loaded: LoadedConfig;
  cwd: string;
  env: Record<string, string | undefined>;
  logger: Logger;
  /** A model for the engines' summaries (`replay --live-summaries`); none by default. */
  summaryModel?: ChatModel;
}

/**
 * The user plugin directory of the real home, so that a replay (which gives
 * each engine a temporary home for its files) still finds the user's plugins.
 */
export function userPluginDir(e: EngineEnvironment): string {
  const configured = e.loaded.config.plugins.user_dir;
  if (configured) return expandPath(configured, e.loaded.baseDir);
  return join(resolveHome({ env: e.env, cwd: e.cwd }), "plugins", "context_engine");
}

/** Every engine found, without importing any (fast; broken manifests already show). */
export async function discoverEngineNames(e: EngineEnvironment): Promise<EngineListing[]> {
  return listEngines({ config: e.loaded, cwd: e.cwd, env: e.env, probe: "none", userDir: userPluginDir(e), nodeModules: engineSearchPaths(e.cwd), logger: e.logger });
}

/**
 * Resolve `--engine a,b` against the engines found: unknown names are a usage
 * error (exit 2) listing the available ones, broken ones a config error (exit 3)
 * saying why. Without names: every engine that is not broken.
 */
export async function chooseEngines(e: EngineEnvironment, requested: readonly string[]): Promise<string[]> {
  const listing = await discoverEngineNames(e);
  const usable = listing.filter((l) => l.status === "ok");
  const names = [...new Set(usable.map((l) => l.name))];
  if (requested.length === 0) return names;
  for (const name of requested) {
    const found = listing.filter((l) => l.name === name);
    if (found.length === 0) {
      throw new UsageError(`unknown engine ${JSON.stringify(name)}; available: ${names.join(", ")}`, {
        hints: ["Run 'context-engine plugins list' to see every engine found and why some cannot load."],
      });
    }
    if (!found.some((l) => l.status === "ok")) {
      throw new ConfigError(`engine ${JSON.stringify(name)} cannot be loaded: ${found[0]!.status}`, {
        hints: ["Run 'context-engine plugins info " + name + "' for details."],
      });
    }
  }
  return [...requested];
}

/**
 * Build engines through the plugin loader exactly as a host would (config
 * section, model thresholds, validation), but with `home` pointed at the
 * run's own directory so engine files never touch the user's data. Unless
 * `summaryModel` is set, engines get no model and use their deterministic
 * summaries, so a replay needs no network.
 */
export function pluginEngineFactory(e: EngineEnvironment): EngineFactory {
  const userDir = userPluginDir(e);
  return async (name, ctx): Promise<ContextEngine> => {
    const loaded = await loadEngine(
      e.loaded,
      { contextLength: ctx.contextLength, model: ctx.model, logger: e.logger, ...(e.summaryModel ? { chatModel: e.summaryModel } : {}) },
      { engine: name, home: ctx.dataDir, userDir, nodeModules: engineSearchPaths(e.cwd), cwd: e.cwd, env: e.env, logger: e.logger },
    );
    return loaded.engine;
  };
}
