import { existsSync } from "node:fs";
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
