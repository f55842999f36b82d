import { defineConfig, type UserConfig } from "tsdown";

/**
 * The one build every package shares: ESM for Node 20 with `.d.ts` and source
 * maps, emitted as `.js` (the packages are `"type": "module"`). Packages pass
 * only what differs, such as extra entry points.
 */
export function packageBuild(overrides: UserConfig = {}) {
  return defineConfig({
    entry: ["src/index.ts"],
    format: "esm",
    platform: "node",
    target: "node20",
    dts: true,
    sourcemap: true,
    clean: true,
    fixedExtension: false,
    ...overrides,
  });
}
