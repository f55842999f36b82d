import { readFileSync } from "node:fs";
import { basename, extname, join } from "node:path";
import { expandPath, isDirectory, isFile } from "../config/locate.js";
import { resolveEntry } from "./entry.js";
import { mainEntry, nodeModulesChain } from "./npm.js";
import type { GeneralPluginSpec } from "./types.js";

const PACKAGE_NAME = /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;

/**
 * Resolve a `plugins.modules` entry: a file path (`./x.js`, `/abs/x.js`,
 * `~/x.js`, relative to config.yaml) or an installed package name.
 */
export function resolveGeneralPlugin(spec: string, baseDir: string): GeneralPluginSpec {
  if (isPathSpec(spec)) {
    const path = expandPath(spec, baseDir);
    const id = basename(path, extname(path));
    if (isFile(path)) return { spec, id, entry: path, problem: null };
    if (isDirectory(path)) {
      const entry = resolveEntry(path, undefined);
      return entry.ok ? { spec, id: basename(path), entry: entry.entry, problem: null } : { spec, id, entry: null, problem: entry.reason };
    }
    return { spec, id, entry: null, problem: `plugin module ${path} not found` };
  }
  if (!PACKAGE_NAME.test(spec)) {
    return { spec, id: spec, entry: null, problem: `"${spec}" is neither a path nor a package name` };
  }
  for (const nodeModules of nodeModulesChain(baseDir)) {
    const dir = join(nodeModules, spec);
    const pkgFile = join(dir, "package.json");
    if (!isFile(pkgFile)) continue;
    try {
      const pkg = JSON.parse(readFileSync(pkgFile, "utf8")) as Record<string, unknown>;
      const entry = resolveEntry(dir, mainEntry(pkg));
      return entry.ok ? { spec, id: spec, entry: entry.entry, problem: null } : { spec, id: spec, entry: null, problem: entry.reason };
    } catch (error) {
      return { spec, id: spec, entry: null, problem: `cannot read ${pkgFile}: ${(error as Error).message}` };
    }
  }
  return { spec, id: spec, entry: null, problem: `package "${spec}" is not installed (searched node_modules from ${baseDir})` };
}

function isPathSpec(spec: string): boolean {
  return spec.startsWith(".") || spec.startsWith("/") || spec.startsWith("~") || /^[a-zA-Z]:[\\/]/.test(spec) || /\.[cm]?js$/.test(spec);
}
