import { realpathSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { isFile } from "../config/locate.js";
import { isInside } from "../names.js";

export const DEFAULT_ENTRIES = ["dist/index.js", "index.js"] as const;

export type EntryResult = { ok: true; entry: string } | { ok: false; reason: string };

/**
 * Resolve a plugin's module inside `dir`. An explicit entry must be relative
 * and, after following symlinks, stay inside the plugin directory.
 */
export function resolveEntry(dir: string, entry: string | undefined): EntryResult {
  if (entry !== undefined) {
    if (isAbsolute(entry) || /^[a-zA-Z]:/.test(entry)) return { ok: false, reason: `entry "${entry}" must be a path relative to the plugin directory` };
    const path = resolve(dir, entry);
    if (!isInside(dir, path)) return { ok: false, reason: `entry "${entry}" points outside the plugin directory` };
    if (!isFile(path)) return { ok: false, reason: `entry "${entry}" not found in ${dir}${entry.startsWith("dist/") ? " (is the plugin built?)" : ""}` };
    return contained(dir, path, entry);
  }
  for (const candidate of DEFAULT_ENTRIES) {
    const path = join(dir, candidate);
    if (isFile(path)) return contained(dir, path, candidate);
  }
  return { ok: false, reason: `no module found: neither ${DEFAULT_ENTRIES.join(" nor ")} exists in ${dir} (is the plugin built?)` };
}

function contained(dir: string, path: string, shown: string): EntryResult {
  try {
    const realDir = realpathSync(dir);
    const realPath = realpathSync(path);
    if (!isInside(realDir, realPath)) return { ok: false, reason: `entry "${shown}" links outside the plugin directory` };
    return { ok: true, entry: realPath };
  } catch (error) {
    return { ok: false, reason: `entry "${shown}" cannot be resolved: ${(error as Error).message}` };
  }
}
