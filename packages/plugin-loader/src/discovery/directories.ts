import { open, readdir } from "node:fs/promises";
import { join } from "node:path";
import { isDirectory, isFile } from "../config/locate.js";
import { engineNameProblem } from "../names.js";
import { resolveEntry } from "./entry.js";
import { PLUGIN_MANIFEST_FILE, readPluginManifest } from "./manifest.js";
import type { EngineCandidate } from "./types.js";

/** How many leading characters of a user plugin's module are checked for the engine marker. */
const HEURISTIC_CHARS = 8192;
const ENGINE_MARKER = "ContextEngine";

/**
 * Every plugin directory under `root`, sorted by name. Names starting with
 * `.` or `_` are skipped, as are empty directories.
 *
 * User directories hold code the user may not have meant as an engine, so
 * their modules must mention `ContextEngine` (the base class or
 * `registerContextEngine`) in their first 8 KiB before they are ever imported.
 */
export async function scanPluginDirectory(root: string, source: "bundled" | "user"): Promise<EngineCandidate[]> {
  if (!isDirectory(root)) return [];
  const entries = await readdir(root, { withFileTypes: true });
  const names = entries
    .filter((e) => !e.name.startsWith(".") && !e.name.startsWith("_"))
    .filter((e) => e.isDirectory() || (e.isSymbolicLink() && isDirectory(join(root, e.name))))
    .map((e) => e.name)
    .sort();
  const candidates = await Promise.all(names.map((name) => readPluginDirectory(join(root, name), name, source)));
  return candidates.filter((c): c is EngineCandidate => c !== null);
}

async function readPluginDirectory(dir: string, name: string, source: "bundled" | "user"): Promise<EngineCandidate | null> {
  const manifestPath = join(dir, PLUGIN_MANIFEST_FILE);
  const base: EngineCandidate = { name, source, dir, entry: null, version: null, description: "", problem: null, origin: manifestPath };
  const nameProblem = engineNameProblem(name);
  if (nameProblem) return { ...base, problem: `directory name refused: ${nameProblem}` };
  if (!isFile(manifestPath)) {
    // A stray empty folder is not a plugin; anything else without a manifest is a broken one.
    const contents = await readdir(dir).catch(() => []);
    if (contents.length === 0) return null;
    return { ...base, problem: `missing ${PLUGIN_MANIFEST_FILE} in ${dir}` };
  }
  const manifest = await readPluginManifest(manifestPath);
  if (!manifest.ok) return { ...base, problem: manifest.reason };
  const { manifest: m } = manifest;
  const described = { ...base, version: m.version, description: m.description };
  if (m.name !== name) {
    return { ...described, problem: `${PLUGIN_MANIFEST_FILE} name "${m.name}" does not match its directory "${name}"` };
  }
  const entry = resolveEntry(dir, m.entry);
  if (!entry.ok) return { ...described, problem: entry.reason };
  if (source === "user" && !(await mentionsEngine(entry.entry))) {
    return {
      ...described,
      entry: entry.entry,
      problem: `does not look like a context engine: the first ${HEURISTIC_CHARS} characters of ${entry.entry} never mention ${ENGINE_MARKER}`,
    };
  }
  return { ...described, entry: entry.entry };
}

async function mentionsEngine(file: string): Promise<boolean> {
  const handle = await open(file, "r").catch(() => null);
  if (!handle) return false;
  try {
    const buffer = Buffer.alloc(HEURISTIC_CHARS * 4);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString("utf8").slice(0, HEURISTIC_CHARS).includes(ENGINE_MARKER);
  } finally {
    await handle.close();
  }
}
