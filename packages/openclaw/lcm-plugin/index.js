// OpenClaw plugin entry (package.json#openclaw.extensions): the context-engine
// LCM engine in OpenClaw's context-engine slot, one engine per session over a
// SQLite file under the agent's directory (or `database_path`).
import { homedir } from "node:os";
import { join } from "node:path";
import { LcmEngine, lcmToolSchemas, parseConfig } from "@context-engine/lcm";
import { defineContextEnginePlugin } from "@context-engine/openclaw";
import manifest from "./openclaw.plugin.json" with { type: "json" };

/** OpenClaw's runtime config schema: LCM's own zod validation, its JSON Schema from the manifest. */
const configSchema = {
  safeParse(value) {
    try {
      return { success: true, data: parseConfig(value ?? {}) };
    } catch (err) {
      return { success: false, error: { issues: [{ path: [], message: err instanceof Error ? err.message : String(err) }] } };
    }
  },
  jsonSchema: manifest.configSchema,
};

export default defineContextEnginePlugin({
  id: manifest.id,
  name: manifest.name,
  description: manifest.description,
  version: manifest.version,
  configSchema,
  toolNames: lcmToolSchemas().map((t) => t.name),
  // A PostgreSQL store is shared by every OpenClaw home on it: a session continued from another home
  // (or after a restart) is assembled from the stored history, not from this home's own transcript.
  historyFromEngine: (engine) => engine.storeInfo?.kind === "postgres",
  engine: ({ pluginConfig, host, logger }) => ({
    factory: (init) => new LcmEngine(init),
    init: {
      config: pluginConfig,
      dataDir: join(host.agentDir ?? host.workspaceDir ?? join(homedir(), ".openclaw"), "context-engine-lcm"),
      logger,
    },
  }),
});
