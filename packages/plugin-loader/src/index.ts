export { ConfigError, EngineLoadError, describeError, type EngineLoadErrorKind } from "./errors.js";
export { BUILTIN_ENGINE_NAME, ENGINE_NAME_PATTERN, engineNameProblem, isValidEngineName } from "./names.js";

export {
  ContextEngineConfigSchema,
  ContextSectionSchema,
  EngineNameSchema,
  HostSectionSchema,
  ModelSectionSchema,
  PluginsSectionSchema,
  defaultConfig,
  selectedEngineName,
  type CompressionSection,
  type ContextEngineConfig,
  type ContextEngineConfigInput,
  type HostSection,
  type ModelSection,
  type PluginsSection,
} from "./config/schema.js";
export { CompressionSectionSchema } from "./config/compression-schema.js";
export { loadConfig, parseConfigText, type LoadConfigOptions, type LoadedConfig, type ParsedConfig } from "./config/load.js";
export { checkConfig, type CheckConfigOptions } from "./config/check.js";
export { CONFIG_FILE_NAME, expandPath, findConfigFile, resolveHome, type LocateOptions } from "./config/locate.js";
export { formatConfigProblem, type ConfigProblem } from "./config/problems.js";

export { defaultBundledDir } from "./bundled-dir.js";
export { discoverEngines, type Discovery, type DiscoveryOptions } from "./discovery/discover.js";
export { PluginManifestSchema, readPluginManifest, PLUGIN_MANIFEST_FILE, type PluginManifest } from "./discovery/manifest.js";
export { PackageEngineFieldSchema } from "./discovery/npm.js";
export type { EngineCandidate, EngineSource, GeneralPluginSpec } from "./discovery/types.js";

export { EngineSlot, type RegistrationContext } from "./registration.js";
export { isEngineClass, instantiatePlugin, type InstantiateResult, type LoadStage, type SafeParser } from "./instantiate.js";
export type { HostContext } from "./init-context.js";
export { loadEngine, type LoadEngineOptions, type LoadedEngine } from "./load-engine.js";
export { listEngines, type EngineListing, type ListEnginesOptions } from "./list-engines.js";
export {
  DEFAULT_CONTEXT_LENGTH,
  KNOWN_CONTEXT_LENGTHS,
  contextLengthFor,
  lookupContextLength,
  type ContextLengthLookup,
  resolveModelSettings,
  type ModelSettings,
} from "./model-settings.js";
