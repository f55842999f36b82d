import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isDirectory } from "./config/locate.js";

const BUNDLED_SUBDIR = join("plugins", "context_engine");

/**
 * The repository's bundled plugin directory: found walking up from this
 * package (`<repo>/packages/plugin-loader/{src,dist}` → `<repo>/plugins/context_engine`),
 * else `<cwd>/plugins/context_engine`; null when neither exists.
 */
export function defaultBundledDir(cwd: string = process.cwd()): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    const candidate = join(dir, BUNDLED_SUBDIR);
    if (isDirectory(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  const fromCwd = join(cwd, BUNDLED_SUBDIR);
  return isDirectory(fromCwd) ? fromCwd : null;
}
