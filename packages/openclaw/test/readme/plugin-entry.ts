// The README's plugin entry, as written there, checked by `tsc -b` (strict) against OpenClaw's own published types.
import type { OpenClawPluginDefinition } from "openclaw/plugin-sdk/plugin-entry";

// --- README begin
// index.ts — the module named in package.json#openclaw.extensions
import { defineContextEnginePlugin } from "@context-engine/openclaw";
import { ContextCompressor } from "@context-engine/compressor";

export default defineContextEnginePlugin({
  id: "my-engine", // same id as openclaw.plugin.json (kind: "context-engine")
  name: "My engine",
  description: "Structured summaries, tool pairs kept intact",
  engine: ({ pluginConfig }) => ({ factory: (init) => new ContextCompressor(init), init: { config: pluginConfig } }),
});
// --- README end

import entry from "./plugin-entry.js";
export const asOpenClawSees: OpenClawPluginDefinition = entry;
