import { readFile } from "node:fs/promises";
import { z } from "zod";
import { formatConfigProblem } from "../config/problems.js";
import { parseYamlSource } from "../config/yaml-source.js";
import { issuesToProblems } from "../config/zod-issues.js";
import { EngineNameSchema } from "../config/schema.js";

export const PLUGIN_MANIFEST_FILE = "plugin.yaml";
/** Largest plugin.yaml accepted (bytes). */
export const MAX_MANIFEST_BYTES = 64 * 1024;

/** `plugin.yaml` of a directory engine. Extra keys (author, homepage…) are allowed and ignored. */
export const PluginManifestSchema = z.looseObject({
  name: EngineNameSchema,
  description: z.string(),
  // YAML reads `version: 1` as a number; accept it, but a version is text.
  version: z.preprocess((v) => (typeof v === "number" ? String(v) : v), z.string({ error: "expected a version string such as 1.2.0" }).min(1)),
  /** Module path relative to the plugin directory; default `dist/index.js`, then `index.js`. */
  entry: z.string().min(1).optional(),
});

export type PluginManifest = z.output<typeof PluginManifestSchema>;

export type ManifestResult = { ok: true; manifest: PluginManifest } | { ok: false; reason: string };

/** Read and validate a plugin.yaml; the failure reason names the file, line, column and key. */
export async function readPluginManifest(file: string): Promise<ManifestResult> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, reason: code === "ENOENT" ? `missing ${PLUGIN_MANIFEST_FILE}` : `cannot read ${file}: ${(error as Error).message}` };
  }
  const source = parseYamlSource(text, file, { maxBytes: MAX_MANIFEST_BYTES, kind: PLUGIN_MANIFEST_FILE });
  const errors = source.problems.filter((p) => p.severity === "error");
  if (errors.length) return { ok: false, reason: `invalid ${PLUGIN_MANIFEST_FILE}: ${errors.map(formatConfigProblem).join("; ")}` };
  const value = source.value;
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, reason: `invalid ${PLUGIN_MANIFEST_FILE}: ${file}: expected a mapping with name, description and version` };
  }
  const parsed = PluginManifestSchema.safeParse(value);
  if (!parsed.success) {
    const problems = issuesToProblems(parsed.error.issues, source, [], { root: value });
    return { ok: false, reason: `invalid ${PLUGIN_MANIFEST_FILE}: ${problems.map(formatConfigProblem).join("; ")}` };
  }
  return { ok: true, manifest: parsed.data };
}
