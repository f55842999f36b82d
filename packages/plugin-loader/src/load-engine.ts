import type { ContextEngine, EngineFactory, EngineInitContext, Logger } from "@context-engine/core";
import { createStderrLogger, isContextEngine, redactSecrets } from "@context-engine/core";
import { availability, disposeEngine } from "./availability.js";
import { BUILTIN_DESCRIPTION, builtinVersion, constructBuiltinEngine, createBuiltinEngine } from "./builtin.js";
import type { LoadedConfig } from "./config/load.js";
import { toLoadedConfig } from "./config/load.js";
import { resolveHome } from "./config/locate.js";
import type { ContextEngineConfig } from "./config/schema.js";
import { discoverEngines } from "./discovery/discover.js";
import type { Discovery, DiscoveryOptions } from "./discovery/discover.js";
import type { EngineSource } from "./discovery/types.js";
import { describeError, EngineLoadError } from "./errors.js";
import type { EngineLoadErrorKind } from "./errors.js";
import { runGeneralPlugins } from "./general.js";
import type { HostContext } from "./init-context.js";
import { createConfigValidator, createContextFactory } from "./init-context.js";
import { instantiatePlugin } from "./instantiate.js";
import { resolveModelSettings } from "./model-settings.js";
import { BUILTIN_ENGINE_NAME, engineNameProblem } from "./names.js";
import { safeName } from "./registration.js";

export interface LoadEngineOptions extends DiscoveryOptions {
  /** Select this engine instead of `context.engine` (e.g. a `--engine` flag). Counts as the user asking. */
  engine?: string;
  /**
   * The engine to use when neither `engine` nor `context.engine` names one
   * (a distribution default). Because the user did not ask for it, a failure
   * falls back to the built-in compressor with `fallbackReason` set.
   */
  defaultEngine?: string;
}

/** The active engine and how it was chosen. */
export interface LoadedEngine {
  engine: ContextEngine;
  name: string;
  source: EngineSource;
  version: string | null;
  description: string;
  /** The plugin.yaml, package or module the engine came from; "built-in" for the compressor. */
  origin: string;
  /** Set when the built-in compressor stands in for an engine the user did not ask for. */
  fallbackReason: string | null;
  /** Everything worth showing the user (shadowed plugins, refused registrations…); already sent to the logger. */
  warnings: string[];
  /** The init context the engine was constructed with. */
  initContext: EngineInitContext;
  /**
   * Builds another instance of the same engine, for one session each (see
   * core's README, "One engine per session"). Its context is `initContext`
   * with the given fields on top (a session's model and window). Null when the
   * engine came as a registered instance without `cloneForAgent()`: hosts
   * then share `engine` across sessions.
   */
  createEngine: EngineFactory | null;
  config: LoadedConfig;
}

/** Instances already handed to a caller; a general plugin that registers the same object twice must clone it. */
const handedOut = new WeakSet<object>();

/**
 * Create the active engine, as `context.engine` (or `options.engine`) says.
 *
 * - `compressor` (the default) is the built-in engine; plugins are never consulted.
 * - Other names: bundled, then user, then npm directory engines, then the
 *   engine registered by a general plugin (`plugins.modules`).
 * - The engine's `modelThresholds` is set from `compression.model_thresholds`
 *   so the host's first `updateModel` already resolves per-model thresholds.
 *
 * Throws `EngineLoadError` when the engine the user asked for cannot be used
 * (the message says why and lists available engines), `ConfigError` for an
 * invalid config object. Broken plugins the user did not ask for never throw.
 */
export async function loadEngine(
  config?: ContextEngineConfig | LoadedConfig,
  ctx: HostContext = {},
  options: LoadEngineOptions = {},
): Promise<LoadedEngine> {
  const cwd = options.cwd ?? process.cwd();
  const loaded = toLoadedConfig(config, cwd);
  const logger: Logger = options.logger ?? ctx.logger ?? createStderrLogger("context-engine");
  const home = resolveHome({ home: options.home, env: options.env, cwd });
  const settings = resolveModelSettings(loaded.config, options.env ?? process.env);
  const host: HostContext = {
    ...ctx,
    contextLength: ctx.contextLength ?? settings.contextLength,
    model: ctx.model ?? settings.model ?? undefined,
    logger,
    // The same environment the model settings come from: an engine's `store_env` is read there too.
    env: ctx.env ?? options.env ?? process.env,
  };
  // One context per engine name per call, so `initContext` is the very object the engine received.
  const factory = createContextFactory(loaded, home, host);
  const contexts = new Map<string, EngineInitContext>();
  const contextFor = (engineName: string): EngineInitContext => {
    let ctx = contexts.get(engineName);
    if (!ctx) contexts.set(engineName, (ctx = factory(engineName)));
    return ctx;
  };
  const asked = options.engine ?? loaded.config.context.engine;
  const name = asked ?? options.defaultEngine ?? BUILTIN_ENGINE_NAME;
  const warnings: string[] = loaded.warnings.map((w) => w.message);

  const finish = (
    engine: ContextEngine,
    initContext: EngineInitContext,
    build: ((ctx: EngineInitContext) => unknown) | null,
    meta: Omit<LoadedEngine, "engine" | "initContext" | "config" | "warnings" | "createEngine">,
  ): LoadedEngine => {
    assignModelThresholds(engine, loaded.config);
    handedOut.add(engine);
    const createEngine = build ? engineFactory(build, initContext, meta.name, loaded.config) : null;
    return { engine, initContext, createEngine, config: loaded, warnings, ...meta };
  };

  const builtin = async (reason: string | null): Promise<LoadedEngine> => {
    // Plugin text (an isAvailable() error, a constructor's message) can carry tokens and URL passwords.
    const fallbackReason = reason === null ? null : redactSecrets(reason);
    const initContext = contextFor(BUILTIN_ENGINE_NAME);
    let engine: ContextEngine;
    try {
      engine = await createBuiltinEngine(initContext);
    } catch (error) {
      throw new EngineLoadError("builtin_failed", BUILTIN_ENGINE_NAME, `the built-in compressor could not be created: ${describeError(error)}`, { cause: error });
    }
    if (fallbackReason) logger.warn(`${fallbackReason}; falling back to the built-in compressor`);
    return finish(engine, initContext, constructBuiltinEngine, {
      name: BUILTIN_ENGINE_NAME,
      source: "builtin",
      version: builtinVersion(),
      description: BUILTIN_DESCRIPTION,
      origin: "built-in",
      fallbackReason,
    });
  };

  // Either an error for the user, or the built-in engine with the reason recorded.
  const fail = async (kind: EngineLoadErrorKind, reason: string, available: string[]): Promise<LoadedEngine> => {
    if (asked !== undefined) throw new EngineLoadError(kind, name, reason, { available });
    return builtin(`context engine "${name}" cannot be loaded: ${reason}`);
  };

  const nameProblem = engineNameProblem(name);
  if (nameProblem) return fail("invalid_name", nameProblem, [BUILTIN_ENGINE_NAME]);
  // "compressor" never consults plugins.
  if (name === BUILTIN_ENGINE_NAME) return builtin(null);

  const discovery = await discoverEngines(loaded, { ...options, cwd, logger });
  warnings.push(...discovery.warnings);
  const available = availableNames(discovery);

  const candidate = discovery.engines.get(name);
  if (candidate) {
    if (candidate.problem || !candidate.entry) return fail("broken_plugin", candidate.problem ?? "no module", available);
    const result = await instantiatePlugin({
      entry: candidate.entry,
      expectedName: name,
      pluginName: name,
      engineContext: contextFor,
      validateConfig: createConfigValidator(loaded),
      logger,
      timeoutMs: options.pluginTimeoutMs,
    });
    if (!result.ok) return fail("broken_plugin", result.reason, available);
    // An engine that cannot start here (its store unreachable) is not a configuration error: the
    // user gets the built-in compressor and the reason, once, as for any engine that fails to load.
    const unavailable = await availability(result.engine, options.pluginTimeoutMs);
    if (unavailable !== "ok") {
      await disposeEngine(result.engine);
      return builtin(`context engine "${name}" cannot start: ${unavailable}`);
    }
    const build = result.construct ?? cloneBuilder(result.engine);
    return finish(result.engine, contextFor(name), build, {
      name,
      source: candidate.source,
      version: candidate.version,
      description: candidate.description,
      origin: candidate.origin,
      fallbackReason: null,
    });
  }

  if (discovery.generalPlugins.length > 0) {
    const general = await runGeneralPlugins(discovery.generalPlugins, baseContext(host), contextFor, logger, options.pluginTimeoutMs);
    warnings.push(...[...general.warnings, ...general.broken.map((b) => `general plugin "${b.plugin.id}" is broken: ${b.reason}`)].map(redactSecrets));
    if (general.engine && safeName(general.engine) === name) {
      const engine = perAgentCopy(general.engine);
      if (!engine.ok) return fail("broken_plugin", engine.reason, available);
      return finish(engine.engine, contextFor(name), cloneBuilder(engine.engine), {
        name,
        source: "registered",
        version: null,
        description: "",
        origin: general.owner ?? "general plugin",
        fallbackReason: null,
      });
    }
    if (general.engine) available.push(safeName(general.engine));
  }
  return fail("unknown_engine", `no engine named "${name}" was found`, [...new Set(available)].sort());
}

/** `compression.model_thresholds` is part of every engine's contract; assign a copy before the first updateModel. */
function assignModelThresholds(engine: ContextEngine, config: ContextEngineConfig): void {
  const map = config.compression?.model_thresholds;
  if (map && Object.keys(map).length > 0) engine.modelThresholds = { ...map };
}

/**
 * A factory over `build`: the loader's context for this engine with the
 * caller's fields on top, the result checked and given the configured
 * `model_thresholds`, like the first instance.
 */
function engineFactory(
  build: (ctx: EngineInitContext) => unknown,
  initContext: EngineInitContext,
  name: string,
  config: ContextEngineConfig,
): EngineFactory {
  return (overrides: EngineInitContext = {}) => {
    const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
    const engine = build({ ...initContext, ...defined });
    if (!isContextEngine(engine)) throw new EngineLoadError("broken_plugin", name, "the engine factory did not return a context engine");
    if (safeName(engine) !== name) throw new EngineLoadError("broken_plugin", name, `the engine factory built an engine named "${safeName(engine)}"`);
    assignModelThresholds(engine, config);
    return engine;
  };
}

/** A registered instance with `cloneForAgent()` can still give each session its own copy. */
function cloneBuilder(engine: ContextEngine): ((ctx: EngineInitContext) => unknown) | null {
  const clone = (engine as { cloneForAgent?: unknown }).cloneForAgent;
  if (typeof clone !== "function") return null;
  return () => clone.call(engine);
}

function baseContext(host: HostContext): EngineInitContext {
  const { contextLength, model, chatModel, logger, env } = host;
  return { contextLength, model, chatModel, logger, ...(env ? { env: Object.freeze({ ...env }) } : {}) };
}

/** Engine names the user could select: the built-in one plus every plugin not already known to be broken. */
function availableNames(discovery: Discovery): string[] {
  const names = [BUILTIN_ENGINE_NAME];
  for (const [name, candidate] of discovery.engines) if (!candidate.problem) names.push(name);
  return names;
}

/**
 * A general plugin may register one long-lived instance; handing the same
 * object to two agents would let one's `updateModel` change the other's. A
 * repeat instance must provide `cloneForAgent()`.
 */
function perAgentCopy(engine: ContextEngine): { ok: true; engine: ContextEngine } | { ok: false; reason: string } {
  if (!handedOut.has(engine)) return { ok: true, engine };
  const clone = (engine as { cloneForAgent?: unknown }).cloneForAgent;
  if (typeof clone !== "function") {
    return { ok: false, reason: "its plugin registered an instance that is already in use by another agent, and the engine has no cloneForAgent() to copy it" };
  }
  try {
    const copy = clone.call(engine) as unknown;
    if (!isContextEngine(copy) || copy === engine) return { ok: false, reason: "cloneForAgent() did not return a new context engine" };
    return { ok: true, engine: copy };
  } catch (error) {
    return { ok: false, reason: `it could not be safely copied for this agent (cloneForAgent() threw: ${describeError(error)})` };
  }
}
