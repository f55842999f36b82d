// A test-only OpenClaw plugin (not shipped): the compressor engine in OpenClaw's context-engine slot,
// so the long scenario can check that its compaction sticks across turns through the real binary.
import { ContextCompressor } from "@context-engine/compressor";
import { defineContextEnginePlugin } from "@context-engine/openclaw";
import manifest from "./openclaw.plugin.json" with { type: "json" };

export default defineContextEnginePlugin({
  id: manifest.id,
  name: manifest.name,
  description: manifest.description,
  version: manifest.version,
  engine: ({ pluginConfig }) => ({ factory: () => new ContextCompressor({ config: pluginConfig }) }),
});
