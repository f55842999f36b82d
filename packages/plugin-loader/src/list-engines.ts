import type { ContextEngine, Logger } from "@context-engine/core";
import { silentLogger } from "@context-engine/core";
import { BUILTIN_DESCRIPTION, builtinVersion, createBuiltinEngine } from "./builtin.js";
import type { LoadedConfig } from "./config/load.js";
import { loadConfig, toLoadedConfig } from "./config/load.js";
import { resolveHome } from "./config/locate.js";
import type { ContextEngineConfig } from "./config/schema.js";
import { selectedEngineName } from "./config/schema.js";
import { discoverEngines } from "./discovery/discover.js";
import type { DiscoveryOptions } from "./discovery/discover.js";
import type { EngineCandidate, EngineSource } from "./discovery/types.js";
import { availability, disposeEngine, engineDetails } from "./availability.js";
import { describeError } from "./errors.js";
import { runGeneralPlugins } from "./general.js";
import type { HostContext } from "./init-context.js";
import { createConfigValidator, createContextFactory } from "./init-context.js";
import { engineClasses, findRegister, importModule, instantiatePlugin } from "./instantiate.js";
import { resolveModelSettings } from "./model-settings.js";
import { BUILTIN_ENGINE_NAME } from "./names.js";
import { safeName } from "./registration.js";

/** One row of `plugins list`. */
export interface EngineListing {
  name: string;
  source: EngineSource;
  version: string | null;
  description: string;
  /** `"ok"`, or why the engine cannot be used. */
  status: string;
  /** Whether `context.engine` selects this very entry. */
  active: boolean;
  /** Plugin directory, package directory or module path; null for the built-in engine. */
  path: string | null;
  /** What a constructed engine says about itself (`describe()`), e.g. the store it uses. */
  details?: Record<string, string>;
}

export interface ListEnginesOptions extends DiscoveryOptions {
  /** The config; default: located and read like `loadConfig()` does. */
  config?: ContextEngineConfig | LoadedConfig;
  /**
   * How far to check each engine: `"construct"` (default) imports and
   * constructs it, which catches every kind of breakage; `"import"` stops
   * after the import and export checks; `"none"` only reads plugin.yaml / package.json.
   */
  probe?: "construct" | "import" | "none";
  /** Passed to probed engines. */
  host?: HostContext;
}

/**
 * Every engine the user could select, broken ones included with the reason:
 * the built-in compressor, bundled and user directory engines, npm engines and
 * the engine a general plugin registers. Never throws for a broken plugin.
 */
export async function listEngines(options: ListEnginesOptions = {}): Promise<EngineListing[]> {
  const cwd = options.cwd ?? process.cwd();
  const loaded = options.config ? toLoadedConfig(options.config, cwd) : await loadConfig({ cwd, home: options.home, env: options.env });
  const logger: Logger = options.logger ?? silentLogger;
  const probe = options.probe ?? "construct";
  const home = resolveHome({ home: options.home, env: options.env, cwd });
  const settings = resolveModelSettings(loaded.config, options.env ?? process.env);
  const host: HostContext = {
    ...options.host,
    contextLength: options.host?.contextLength ?? settings.contextLength,
    model: options.host?.model ?? settings.model ?? undefined,
    logger,
    env: options.host?.env ?? options.env ?? process.env,
  };
  const contextFor = createContextFactory(loaded, home, host);
  const selected = selectedEngineName(loaded.config);

  const rows: EngineListing[] = [];
  rows.push({
    name: BUILTIN_ENGINE_NAME,
    source: "builtin",
    version: builtinVersion(),
    description: BUILTIN_DESCRIPTION,
    status: probe === "construct" ? await probeBuiltin(() => createBuiltinEngine(contextFor(BUILTIN_ENGINE_NAME))) : "ok",
    active: selected === BUILTIN_ENGINE_NAME,
    path: null,
  });

  const discovery = await discoverEngines(loaded, { ...options, cwd, logger });
  const validateConfig = createConfigValidator(loaded);
  const probeCandidate = async (candidate: EngineCandidate): Promise<{ status: string; details?: Record<string, string> }> => {
    if (candidate.problem || !candidate.entry) return { status: candidate.problem ?? "no module" };
    if (probe === "none") return { status: "ok" };
    if (probe === "import") return { status: await probeImport(candidate.entry, options.pluginTimeoutMs) };
    const result = await instantiatePlugin({
      entry: candidate.entry,
      expectedName: candidate.name,
      pluginName: candidate.name,
      engineContext: contextFor,
      validateConfig,
      logger,
      timeoutMs: options.pluginTimeoutMs,
    });
    if (!result.ok) return { status: result.reason };
    const status = await availability(result.engine, options.pluginTimeoutMs);
    const details = engineDetails(result.engine);
    await disposeEngine(result.engine);
    return { status, ...(details ? { details } : {}) };
  };

  for (const candidate of discovery.engines.values()) {
    rows.push({
      ...rowOf(candidate),
      ...(await probeCandidate(candidate)),
      active: selected === candidate.name && candidate.name !== BUILTIN_ENGINE_NAME,
    });
  }
  for (const { candidate, by } of discovery.shadowed) {
    rows.push({ ...rowOf(candidate), status: `shadowed by the ${by.source} engine of the same name (${by.origin})`, active: false });
  }

  if (discovery.generalPlugins.length > 0 && probe !== "none") {
    const base = { contextLength: host.contextLength, model: host.model, chatModel: host.chatModel, logger };
    const general = await runGeneralPlugins(discovery.generalPlugins, base, contextFor, logger, options.pluginTimeoutMs);
    if (general.engine) {
      const name = safeName(general.engine);
      const shadow = discovery.engines.get(name) ?? (name === BUILTIN_ENGINE_NAME ? { source: "builtin", origin: "built-in" } : null);
      rows.push({
        name,
        source: "registered",
        version: null,
        description: `registered by plugin "${general.owner}"`,
        status: shadow ? `shadowed by the ${shadow.source} engine of the same name (${shadow.origin})` : await availability(general.engine),
        active: !shadow && selected === name,
        path: discovery.generalPlugins.find((p) => p.id === general.owner)?.entry ?? null,
      });
    }
    for (const { plugin, reason } of general.broken) {
      rows.push({ name: plugin.id, source: "registered", version: null, description: `general plugin ${plugin.spec}`, status: reason, active: false, path: plugin.entry });
    }
  }
  return rows;
}

function rowOf(candidate: EngineCandidate): Omit<EngineListing, "status" | "active"> {
  return {
    name: candidate.name,
    source: candidate.source,
    version: candidate.version,
    description: candidate.description,
    path: candidate.dir,
  };
}

async function probeBuiltin(create: () => Promise<ContextEngine>): Promise<string> {
  try {
    await create();
    return "ok";
  } catch (error) {
    return `the built-in compressor could not be created: ${describeError(error)}`;
  }
}

async function probeImport(entry: string, timeoutMs: number | undefined): Promise<string> {
  const mod = await importModule(entry, timeoutMs);
  if (!mod.ok) return mod.reason;
  if (!findRegister(mod.exports) && engineClasses(mod.exports).length === 0) return "the module exports no ContextEngine subclass and no register(ctx) function";
  return "ok";
}


