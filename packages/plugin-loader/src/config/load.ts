import { open, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { ConfigError } from "../errors.js";
import type { LocateOptions } from "./locate.js";
import { findConfigFile } from "./locate.js";
import type { ConfigProblem } from "./problems.js";
import { ContextEngineConfigSchema, defaultConfig, knownConfigKeys } from "./schema.js";
import type { ContextEngineConfig } from "./schema.js";
import type { YamlSource } from "./yaml-source.js";
import { parseYamlSource } from "./yaml-source.js";
import { issuesToProblems } from "./zod-issues.js";
import { normalizeModelWindow } from "./model-window.js";

/** A validated config plus where it came from (to position later errors, e.g. an engine's own section). */
export interface LoadedConfig {
  config: ContextEngineConfig;
  /** The file read, or null when defaults were used. */
  file: string | null;
  /** Relative paths in the config (plugins.user_dir, plugins.modules) resolve against this. */
  baseDir: string;
  /** The parsed YAML, for positions; null when no file was read. */
  source: YamlSource | null;
  /** Non-fatal problems (YAML warnings). */
  warnings: ConfigProblem[];
}

export interface ParsedConfig {
  /** The validated config, or null when there were errors. */
  config: ContextEngineConfig | null;
  /** Every problem found (errors and warnings). */
  problems: ConfigProblem[];
  source: YamlSource;
}

/** Parse and validate config.yaml text. Never throws; problems carry file:line:column. */
/** Largest config.yaml accepted (bytes). */
export const MAX_CONFIG_BYTES = 1024 * 1024;

export function parseConfigText(text: string, file: string | null = null): ParsedConfig {
  const source = parseYamlSource(text, file, { maxBytes: MAX_CONFIG_BYTES, kind: "config.yaml" });
  const problems = [...source.problems];
  if (problems.some((p) => p.severity === "error")) return { config: null, problems, source };
  const value = source.value ?? {};
  if (typeof value !== "object" || Array.isArray(value)) {
    problems.push({
      file,
      line: 1,
      column: 1,
      key: "",
      message: `the file holds ${Array.isArray(value) ? "a list" : `a ${typeof value}`}`,
      expected: "a mapping with keys context, model, compression, engines, plugins",
      severity: "error",
    });
    return { config: null, problems, source };
  }
  const parsed = ContextEngineConfigSchema.safeParse(value);
  if (!parsed.success) {
    problems.push(...issuesToProblems(parsed.error.issues, source, [], { root: value, knownKeys: knownConfigKeys }));
    return { config: null, problems, source };
  }
  problems.push(...normalizeModelWindow(parsed.data, source));
  if (problems.some((p) => p.severity === "error")) return { config: null, problems, source };
  return { config: parsed.data, problems, source };
}

export interface LoadConfigOptions extends LocateOptions {
  /** An explicit config file; when absent the file is located (cwd, then home). */
  path?: string;
}

/**
 * Read the config: the explicit `path`, else `./config.yaml`, else
 * `<home>/config.yaml`, else defaults. Throws `ConfigError` listing every problem.
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const cwd = options.cwd ?? process.cwd();
  const file = options.path ? resolve(cwd, options.path) : findConfigFile(options);
  if (!file) return { config: defaultConfig(), file: null, baseDir: cwd, source: null, warnings: [] };
  const text = await readConfigText(file);
  const parsed = parseConfigText(text, file);
  if (!parsed.config) throw new ConfigError(file, parsed.problems);
  return {
    config: parsed.config,
    file,
    baseDir: dirname(file),
    source: parsed.source,
    warnings: parsed.problems.filter((p) => p.severity === "warning"),
  };
}

/** Most lines of config.yaml: parsing a mapping is quadratic in its keys (duplicate-key check), so a huge one is refused first. */
export const MAX_CONFIG_LINES = 2_000;

/**
 * The text of a config file: only a regular file (a FIFO would block the read forever), at most
 * MAX_CONFIG_BYTES and MAX_CONFIG_LINES, so reading and parsing are bounded in size and time.
 */
export async function readConfigText(file: string): Promise<string> {
  const fail = (message: string): never => {
    throw new ConfigError(file, [{ file, line: null, column: null, key: "", message, severity: "error" }]);
  };
  let handle;
  try {
    const st = await stat(file);
    if (st.isDirectory()) return fail("is a directory, not a file");
    if (!st.isFile()) return fail(`is not a regular file (it is a ${st.isFIFO() ? "named pipe (FIFO)" : st.isSocket() ? "socket" : "device"}); the config must be a plain file`);
    if (st.size > MAX_CONFIG_BYTES) return fail(`is ${Math.ceil(st.size / 1024)} KiB; a config file may be at most ${MAX_CONFIG_BYTES / 1024} KiB`);
    handle = await open(file, "r");
    // The file may have grown since stat: read one byte past the limit to notice.
    const buffer = Buffer.alloc(MAX_CONFIG_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > MAX_CONFIG_BYTES) return fail(`is larger than ${MAX_CONFIG_BYTES / 1024} KiB; a config file may be at most that`);
    const text = buffer.subarray(0, bytesRead).toString("utf8");
    let lines = 1;
    for (let i = text.indexOf("\n"); i !== -1 && lines <= MAX_CONFIG_LINES; i = text.indexOf("\n", i + 1)) lines++;
    if (lines > MAX_CONFIG_LINES) return fail(`has more than ${MAX_CONFIG_LINES} lines; a config file may be at most that`);
    return text;
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(file, [unreadable(file, error)]);
  } finally {
    await handle?.close();
  }
}

export function unreadable(file: string, error: unknown): ConfigProblem {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const message =
    code === "ENOENT" ? "file not found" : code === "EISDIR" ? "is a directory, not a file" : `cannot read: ${String((error as Error)?.message ?? error)}`;
  return { file, line: null, column: null, key: "", message, severity: "error" };
}

/** Accept either a bare config or a LoadedConfig. */
export function toLoadedConfig(config: ContextEngineConfig | LoadedConfig | undefined, cwd: string): LoadedConfig {
  if (!config) return { config: defaultConfig(), file: null, baseDir: cwd, source: null, warnings: [] };
  if (isLoadedConfig(config)) return config;
  // A hand-built object: validate it so loadEngine sees the same shape as from a file.
  const parsed = ContextEngineConfigSchema.safeParse(config);
  if (!parsed.success) throw new ConfigError(null, issuesToProblems(parsed.error.issues, null, [], { root: config, knownKeys: knownConfigKeys }));
  const window = normalizeModelWindow(parsed.data, null);
  if (window.some((p) => p.severity === "error")) throw new ConfigError(null, window);
  return { config: parsed.data, file: null, baseDir: cwd, source: null, warnings: window };
}

function isLoadedConfig(value: unknown): value is LoadedConfig {
  return !!value && typeof value === "object" && "config" in value && "baseDir" in value && "source" in value;
}
