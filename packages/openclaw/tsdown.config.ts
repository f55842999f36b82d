import { fileURLToPath } from "node:url";
import { defineConfig } from "tsdown";
import { packageBuild } from "../../tooling/tsdown.base.ts";

export default defineConfig([
  packageBuild(),
  // The installable LCM plugin: one self-contained module, so `openclaw plugins install` needs no
  // @context-engine package from a registry. Only better-sqlite3 (native, built for the user's Node),
  // re2js (loaded by path in a worker) and the optional pg (PostgreSQL store) stay dependencies.
  {
    entry: { index: "lcm-plugin/index.js" },
    outDir: "lcm-plugin/dist",
    format: "esm",
    platform: "node",
    target: "node20",
    dts: false,
    sourcemap: false,
    clean: true,
    fixedExtension: false,
    deps: { alwaysBundle: [/^@context-engine\//, "zod", /^zod\//], neverBundle: ["better-sqlite3", "pg", "re2js"] },
    alias: { "@context-engine/openclaw": fileURLToPath(new URL("./src/index.ts", import.meta.url)) },
  },
  // A test-only plugin (not in `files`): the compressor in the slot, for the long scenario.
  {
    entry: { index: "e2e/compressor-plugin/index.js" },
    outDir: "e2e/compressor-plugin/dist",
    format: "esm",
    platform: "node",
    target: "node20",
    dts: false,
    sourcemap: false,
    clean: true,
    fixedExtension: false,
    deps: { alwaysBundle: [/^@context-engine\//, "zod", /^zod\//] },
    alias: { "@context-engine/openclaw": fileURLToPath(new URL("./src/index.ts", import.meta.url)) },
  },
]);
