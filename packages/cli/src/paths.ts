import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The package's `data/` folder, found from the running module: `dist/*.js`
 * is one level below the package root, `src/**` one or two.
 */
export function packageDataDir(): string | null {
  for (const rel of ["../data/", "../../data/", "../../../data/"]) {
    const path = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(`${path}SOURCES.md`)) return path;
  }
  return null;
}

/** The bundled demo session (a real MIT-licensed recording; see data/SOURCES.md). */
export const DEMO_SESSION_FILE = "psf__requests-6028.traj.json";

/** `node_modules` folders Node would search from `start`, nearest first. */
function nodeModulesChain(start: string): string[] {
  const out: string[] = [];
  let dir = resolve(start);
  for (;;) {
    const candidate = join(dir, "node_modules");
    if (existsSync(candidate)) out.push(candidate);
    const parent = dirname(dir);
    if (parent === dir) return out;
    dir = parent;
  }
}

/**
 * Where to look for engine packages: the working directory's chain (a
 * project's own engines), then the CLI's own (engines installed next to it,
 * such as @context-engine/lcm, or globally with it).
 */
export function engineSearchPaths(cwd: string): string[] {
  const own = nodeModulesChain(dirname(fileURLToPath(import.meta.url)));
  return [...new Set([...nodeModulesChain(cwd), ...own])];
}
