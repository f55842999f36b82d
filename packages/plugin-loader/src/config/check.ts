import { dirname, resolve } from "node:path";
import { silentLogger } from "@context-engine/core";
import type { DiscoveryOptions } from "../discovery/discover.js";
import { discoverEngines } from "../discovery/discover.js";
import { runGeneralPlugins } from "../general.js";
import { createContextFactory, engineSectionProblems } from "../init-context.js";
import { findConfigSchema, importModule } from "../instantiate.js";
import type { SafeParser } from "../instantiate.js";
import { BUILTIN_ENGINE_NAME } from "../names.js";
import { safeName } from "../registration.js";
import type { LoadedConfig } from "./load.js";
import { parseConfigText, readConfigText, unreadable } from "./load.js";
import { ConfigError } from "../errors.js";
import { resolveHome } from "./locate.js";
import { salvageConfig, sectionsWithErrors, sortProblems } from "./salvage.js";
import type { ConfigProblem } from "./problems.js";
import { selectedEngineName } from "./schema.js";
import type { YamlSource } from "./yaml-source.js";

export interface CheckConfigOptions extends DiscoveryOptions {
  /**
   * Also check against the installed engines: that `context.engine` exists and
   * is loadable, that `plugins.modules` resolve, and that each `engines.<name>`
   * section passes that engine's `configSchema`. Default true.
   */
  plugins?: boolean;
}

/**
 * Every problem in a config file, each with file, line, column, key and what
 * was expected (for `config check`). Never throws; an empty list means valid.
 * Warnings (e.g. a section for an engine that is not installed) do not make
 * the config invalid.
 */
export async function checkConfig(path: string, options: CheckConfigOptions = {}): Promise<ConfigProblem[]> {
  const cwd = options.cwd ?? process.cwd();
  const file = resolve(cwd, path);
  let text: string;
  try {
    text = await readConfigText(file);
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    return [unreadable(file, error)];
  }
  const parsed = parseConfigText(text, file);
  if (options.plugins === false) return sortProblems(parsed.problems);
  // A config with schema errors is still checked against the engines, on its valid sections.
  const config = parsed.config ?? salvageConfig(parsed.source.value);
  if (!config) return sortProblems(parsed.problems);
  const loaded: LoadedConfig = { config, file, baseDir: dirname(file), source: parsed.source, warnings: [] };
  const broken = parsed.config ? new Set<string>() : sectionsWithErrors(parsed.problems);
  const engineProblems = (await checkAgainstPlugins(loaded, parsed.source, { ...options, cwd })).filter(
    (p) => !broken.has(p.key.split(/[.[]/)[0] ?? ""),
  );
  return sortProblems([...parsed.problems, ...engineProblems]);
}

async function checkAgainstPlugins(loaded: LoadedConfig, source: YamlSource, options: CheckConfigOptions): Promise<ConfigProblem[]> {
  const problems: ConfigProblem[] = [];
  const at = (path: PropertyKey[], message: string, severity: ConfigProblem["severity"] = "error", expected?: string, atKey = false) => {
    const pos = source.positionOf(path, atKey);
    problems.push({
      file: source.file,
      line: pos?.line ?? null,
      column: pos?.column ?? null,
      key: path.map((p) => (typeof p === "number" ? `[${p}]` : String(p))).join(".").replace(/\.\[/g, "["),
      message,
      ...(expected ? { expected } : {}),
      severity,
    });
  };
  const logger = options.logger ?? silentLogger;
  const discovery = await discoverEngines(loaded, { ...options, logger });
  const config = loaded.config;

  config.plugins.modules.forEach((_spec, i) => {
    const plugin = discovery.generalPlugins[i];
    if (plugin?.problem) at(["plugins", "modules", i], plugin.problem);
  });

  // Engines registered by general plugins count as installed; run them only when needed.
  let registered: string | null | undefined;
  const registeredName = async () => {
    if (registered !== undefined) return registered;
    registered = null;
    if (discovery.generalPlugins.some((p) => p.entry)) {
      const home = resolveHome({ home: options.home, env: options.env, cwd: options.cwd });
      const general = await runGeneralPlugins(discovery.generalPlugins, { logger }, createContextFactory(loaded, home, { logger }), logger, options.pluginTimeoutMs);
      registered = general.engine ? safeName(general.engine) : null;
    }
    return registered;
  };
  const available = () => [BUILTIN_ENGINE_NAME, ...[...discovery.engines.values()].filter((c) => !c.problem).map((c) => c.name)];

  const selected = selectedEngineName(config);
  if (selected !== BUILTIN_ENGINE_NAME) {
    const candidate = discovery.engines.get(selected);
    if (candidate?.problem) {
      at(["context", "engine"], `engine "${selected}" is installed but broken: ${candidate.problem}`);
    } else if (!candidate && (await registeredName()) !== selected) {
      at(["context", "engine"], `unknown engine "${selected}"`, "error", `one of ${available().join(", ")}`);
    }
  }

  for (const name of Object.keys(config.engines)) {
    const candidate = discovery.engines.get(name);
    if (name === BUILTIN_ENGINE_NAME) {
      at(["engines", name], 'the built-in compressor is configured in the "compression" block, not under engines', "error", "compression:", true);
      continue;
    }
    if (!candidate) {
      if ((await registeredName()) !== name) at(["engines", name], `configuration for engine "${name}", which is not installed`, "warning", undefined, true);
      continue;
    }
    if (!candidate.entry || candidate.problem) continue;
    const schema = await importConfigSchema(candidate.entry, options.pluginTimeoutMs);
    if (typeof schema === "string") {
      at(["engines", name], `cannot check this section: ${schema}`, "warning", undefined, true);
      continue;
    }
    if (!schema) {
      at(["engines", name], `engine "${name}" publishes no configSchema, so this section reaches it unchecked`, "warning", "a configSchema export from the engine", true);
      continue;
    }
    problems.push(...engineSectionProblems(loaded, name, schema));
  }
  return problems;
}

async function importConfigSchema(entry: string, timeoutMs: number | undefined): Promise<SafeParser | null | string> {
  const mod = await importModule(entry, timeoutMs);
  if (!mod.ok) return mod.reason;
  return findConfigSchema(mod.exports);
}
