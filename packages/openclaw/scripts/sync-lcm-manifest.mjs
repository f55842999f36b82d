#!/usr/bin/env node
// Rewrites lcm-plugin/openclaw.plugin.json's configSchema from LCM's own zod schema, so the
// manifest OpenClaw validates against never drifts from what the engine accepts. Needs LCM built.
import { readFileSync, writeFileSync } from "node:fs";
import { configSchema } from "@context-engine/lcm";
import { z } from "zod";

const file = new URL("../lcm-plugin/openclaw.plugin.json", import.meta.url);
const manifest = JSON.parse(readFileSync(file, "utf8"));
const generated = z.toJSONSchema(configSchema, { io: "input" });
delete generated.$schema;
manifest.configSchema = generated;
writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`updated ${file.pathname}`);
