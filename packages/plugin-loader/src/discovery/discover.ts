import { realpathSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "@context-engine/core";
import { defaultBundledDir } from "../bundled-dir.js";
import type { LoadedConfig } from "../config/load.js";
import { expandPath, resolveHome } from "../config/locate.js";
import { BUILTIN_ENGINE_NAME } from "../names.js";
import { scanPluginDirectory } from "./directories.js";
import { resolveGeneralPlugin } from "./general-plugins.js";
import { nodeModulesChain, scanNpmPackages } from "./npm.js";
import type { EngineCandidate, GeneralPluginSpec } from "./types.js";

export interface DiscoveryOptions {
  /** Working directory: config lookup, npm scan start, bundled fallback. Default `process.cwd()`. */
  cwd?: string;
  /** The context-engine home (data, user plugins, config); default `$CONTEXT_ENGINE_HOME` or `~/.context-engine`. */
  home?: string;
  env?: Record<string, string | undefined>;
  /** The bundled plugin directory; default `<repo>/plugins/context_engine`. `null` disables it. */
  bundledDir?: string | null;
  /** The user plugin directory; default `plugins.user_dir`, else `<home>/plugins/context_engine`. `null` disables it. */
  userDir?: string | null;
  /** `node_modules` directories to scan for engine packages; default: those Node would search from `cwd`. `false` disables. */
  nodeModules?: readonly string[] | false;
  /** Receives warnings (shadowed plugins, refused registrations). */
  logger?: Logger;
  /** Limit for a plugin's import and `register(ctx)`, in ms; default 30 000 (0 disables). */
  pluginTimeoutMs?: number;
}

export interface Discovery {
  /** The winning candidate per name (bundled > user > npm). */
  engines: Map<string, EngineCandidate>;
  /** Candidates that lost to another of the same name. */
  shadowed: Array<{ candidate: EngineCandidate; by: EngineCandidate }>;
  /** `plugins.modules` entries, resolved. */
  generalPlugins: GeneralPluginSpec[];
  warnings: string[];
  dirs: { bundled: string | null; user: string | null; nodeModules: string[] };
}

/** Find every plugin engine without importing any of them. */
export async function discoverEngines(loaded: LoadedConfig, options: DiscoveryOptions = {}): Promise<Discovery> {
  const cwd = options.cwd ?? process.cwd();
  const home = resolveHome({ home: options.home, env: options.env, cwd });
  const bundledDir = options.bundledDir === undefined ? defaultBundledDir(cwd) : options.bundledDir;
  const userDir =
    options.userDir !== undefined
      ? options.userDir
      : loaded.config.plugins.user_dir
        ? expandPath(loaded.config.plugins.user_dir, loaded.baseDir)
        : join(home, "plugins", "context_engine");
  const nodeModules = options.nodeModules === false ? [] : [...(options.nodeModules ?? nodeModulesChain(cwd))];

  const [bundled, user, npm] = await Promise.all([
    bundledDir ? scanPluginDirectory(bundledDir, "bundled") : [],
    userDir ? scanPluginDirectory(userDir, "user") : [],
    scanNpmPackages(nodeModules),
  ]);

  const warnings: string[] = [];
  const engines = new Map<string, EngineCandidate>();
  const shadowed: Discovery["shadowed"] = [];
  for (const candidate of [...bundled, ...user, ...npm]) {
    if (candidate.name === BUILTIN_ENGINE_NAME && !candidate.problem) {
      candidate.problem = `the name "${BUILTIN_ENGINE_NAME}" is reserved for the built-in engine`;
    }
    const winner = engines.get(candidate.name);
    if (!winner) {
      engines.set(candidate.name, candidate);
      continue;
    }
    if (sameDir(winner.dir, candidate.dir)) continue;
    shadowed.push({ candidate, by: winner });
    warnings.push(
      `${candidate.source} engine "${candidate.name}" (${candidate.origin}) is shadowed by the ${winner.source} engine of the same name (${winner.origin}); the ${winner.source} one is used`,
    );
  }
  const generalPlugins = loaded.config.plugins.modules.map((spec) => resolveGeneralPlugin(spec, loaded.baseDir));
  for (const w of warnings) options.logger?.warn(w);
  return { engines, shadowed, generalPlugins, warnings, dirs: { bundled: bundledDir, user: userDir, nodeModules } };
}

function sameDir(a: string | null, b: string | null): boolean {
  if (!a || !b) return false;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return a === b;
  }
}
