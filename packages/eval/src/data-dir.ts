import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * The data directory: `CONTEXT_ENGINE_DATA_DIR`, else `../shared/data` next
 * to the repository root. The data is read in place, never copied.
 */
export function findDataDir(repoRoot: string, env: Record<string, string | undefined> = process.env): string {
  const candidate = env.CONTEXT_ENGINE_DATA_DIR ? resolve(env.CONTEXT_ENGINE_DATA_DIR) : resolve(repoRoot, "..", "shared", "data");
  if (!existsSync(candidate)) {
    throw new Error(`no data directory at ${candidate}: set CONTEXT_ENGINE_DATA_DIR to the folder holding locomo/ and agent-traces/`);
  }
  return candidate;
}
