import { existsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The nearest `<ancestor>/shared/data` walking up from `start`, or null. */
function findUpwards(start: string): string | null {
  let dir = resolve(start);
  for (;;) {
    const candidate = join(dir, "shared", "data");
    if (isDir(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/**
 * Where the shared conversation data lives: `explicit`, else env
 * `CONTEXT_ENGINE_DATA_DIR`, else the nearest `../shared/data` walking up from
 * the working directory and then from this package's own location. Null when
 * none exists (tests then skip with a notice).
 */
export function resolveDataDir(explicit?: string): string | null {
  if (explicit) return existsSync(explicit) ? resolve(explicit) : null;
  const fromEnv = process.env.CONTEXT_ENGINE_DATA_DIR;
  if (fromEnv) return existsSync(fromEnv) ? resolve(fromEnv) : null;
  const fromCwd = findUpwards(process.cwd());
  if (fromCwd) return fromCwd;
  try {
    return findUpwards(dirname(fileURLToPath(import.meta.url)));
  } catch {
    return null;
  }
}
