import { realpathSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { z } from "zod";
import { isDirectory } from "../config/locate.js";
import { EngineNameSchema } from "../config/schema.js";
import { formatKeyPath } from "../config/problems.js";
import { resolveEntry } from "./entry.js";
import type { EngineCandidate } from "./types.js";

/** The `contextEngine` field of an engine package's package.json. */
export const PackageEngineFieldSchema = z.looseObject({
  name: EngineNameSchema,
  /** Module path relative to the package; default: the package's main export. */
  entry: z.string().min(1).optional(),
});

/** `node_modules` directories Node would search from `from`: its own, then each ancestor's. */
export function nodeModulesChain(from: string): string[] {
  const out: string[] = [];
  let dir = from;
  for (;;) {
    const candidate = join(dir, "node_modules");
    if (isDirectory(candidate)) out.push(candidate);
    const parent = dirname(dir);
    if (parent === dir) return out;
    dir = parent;
  }
}

/**
 * Installed packages whose package.json declares `contextEngine`. Reads only
 * package.json files (top level and `@scope/*`); nothing is imported here.
 * A package reachable twice (pnpm symlinks) is listed once; the nearest
 * `node_modules` wins.
 */
export async function scanNpmPackages(nodeModulesDirs: readonly string[]): Promise<EngineCandidate[]> {
  const seenDirs = new Set<string>();
  const out: EngineCandidate[] = [];
  for (const root of nodeModulesDirs) {
    for (const pkgDir of await packageDirs(root)) {
      let real: string;
      try {
        real = realpathSync(pkgDir);
      } catch {
        continue;
      }
      if (seenDirs.has(real)) continue;
      seenDirs.add(real);
      const candidate = await readPackage(real);
      if (candidate) out.push(candidate);
    }
  }
  return out;
}

async function packageDirs(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.name.startsWith(".")) continue;
    const path = join(root, e.name);
    if (e.name.startsWith("@")) {
      const scoped = await readdir(path).catch(() => []);
      for (const s of scoped.sort()) if (!s.startsWith(".")) out.push(join(path, s));
    } else {
      out.push(path);
    }
  }
  return out;
}

async function readPackage(dir: string): Promise<EngineCandidate | null> {
  let pkg: Record<string, unknown>;
  try {
    pkg = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (!pkg || typeof pkg !== "object" || !("contextEngine" in pkg)) return null;
  const packageName = typeof pkg.name === "string" ? pkg.name : dir;
  const base: EngineCandidate = {
    name: packageName,
    source: "npm",
    dir,
    entry: null,
    version: typeof pkg.version === "string" ? pkg.version : null,
    description: typeof pkg.description === "string" ? pkg.description : "",
    problem: null,
    origin: packageName,
  };
  const field = PackageEngineFieldSchema.safeParse(pkg.contextEngine);
  if (!field.success) {
    const issue = field.error.issues[0];
    const where = formatKeyPath(["contextEngine", ...(issue?.path ?? [])]);
    return { ...base, problem: `invalid package.json field ${where} in ${packageName}: ${issue?.message ?? "invalid"}` };
  }
  const named = { ...base, name: field.data.name };
  const entry = resolveEntry(dir, field.data.entry ?? mainEntry(pkg));
  if (!entry.ok) return { ...named, problem: entry.reason };
  return { ...named, entry: entry.entry };
}

/** The import entry of a package: `exports["."]` (import/default), else `main`. */
export function mainEntry(pkg: Record<string, unknown>): string | undefined {
  const pick = (value: unknown): string | undefined => {
    if (typeof value === "string") return value;
    if (value && typeof value === "object") {
      const v = value as Record<string, unknown>;
      return pick(v.import) ?? pick(v.default) ?? pick(v.node);
    }
    return undefined;
  };
  const exp = pkg.exports;
  const root = exp && typeof exp === "object" && !Array.isArray(exp) && "." in exp ? (exp as Record<string, unknown>)["."] : exp;
  const fromExports = pick(root);
  const main = fromExports ?? (typeof pkg.main === "string" ? pkg.main : undefined);
  return main?.replace(/^\.\//, "");
}
