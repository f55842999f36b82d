import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

export interface LocateOptions {
  /** Where to look for `config.yaml` first; default `process.cwd()`. */
  cwd?: string;
  /** The context-engine home; default `$CONTEXT_ENGINE_HOME`, else `~/.context-engine`. */
  home?: string;
  /** Environment to read; default `process.env`. */
  env?: Record<string, string | undefined>;
}

export const CONFIG_FILE_NAME = "config.yaml";

/** Expand a leading `~` and resolve against `base`. */
export function expandPath(path: string, base: string = process.cwd()): string {
  if (path === "~") return homedir();
  if (path.startsWith("~/") || path.startsWith("~\\")) return join(homedir(), path.slice(2));
  return isAbsolute(path) ? resolve(path) : resolve(base, path);
}

/** The context-engine home: explicit, else `$CONTEXT_ENGINE_HOME`, else `~/.context-engine`. */
export function resolveHome(options: Pick<LocateOptions, "home" | "env" | "cwd"> = {}): string {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  if (options.home) return expandPath(options.home, cwd);
  const fromEnv = env.CONTEXT_ENGINE_HOME?.trim();
  if (fromEnv) return expandPath(fromEnv, cwd);
  return join(homedir(), ".context-engine");
}

/**
 * The config file to use: `./config.yaml` in the working directory, else
 * `<home>/config.yaml`; null when neither exists (defaults apply).
 */
export function findConfigFile(options: LocateOptions = {}): string | null {
  const cwd = options.cwd ?? process.cwd();
  for (const candidate of [join(cwd, CONFIG_FILE_NAME), join(resolveHome(options), CONFIG_FILE_NAME)]) {
    // A FIFO, device or socket named config.yaml is returned too: reading it then says what it is (never blocks).
    if (isFile(candidate) || isSpecialFile(candidate)) return candidate;
  }
  return null;
}

export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Whether `path` exists and is neither a regular file nor a directory (FIFO, socket, device). */
export function isSpecialFile(path: string): boolean {
  try {
    const st = statSync(path);
    return !st.isFile() && !st.isDirectory();
  } catch {
    return false;
  }
}

export function isDirectory(path: string): boolean {
  try {
    return existsSync(path) && statSync(path).isDirectory();
  } catch {
    return false;
  }
}
