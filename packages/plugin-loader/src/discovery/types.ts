/** Where an engine comes from. */
export type EngineSource = "builtin" | "bundled" | "user" | "npm" | "registered";

/** A discovered engine before its module is imported. */
export interface EngineCandidate {
  /** The engine name (the directory name or package.json `contextEngine.name`). */
  name: string;
  source: EngineSource;
  /** The plugin directory or package directory. */
  dir: string | null;
  /** Absolute path of the module to import; null when it could not be resolved. */
  entry: string | null;
  version: string | null;
  description: string;
  /** Why it is broken before anything is imported (bad plugin.yaml, missing entry, bad name), else null. */
  problem: string | null;
  /** Human-readable origin: the plugin.yaml path, the npm package name or the module spec. */
  origin: string;
}

/** A general plugin module listed in `plugins.modules`. */
export interface GeneralPluginSpec {
  /** As written in config.yaml. */
  spec: string;
  /** A short id for messages: the package name or file name without extension. */
  id: string;
  /** The resolved module path, or null with `problem` set. */
  entry: string | null;
  problem: string | null;
}
