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
    // Declarations are emitted from the workspace packages' built .d.ts (what consumers get), never from
    // their sources: through the source condition a dependency's types resolve only when its tsc -b
    // output (.tsbuild) happens to exist, so the emitted .d.ts depended on whether a typecheck ran first
    // (an unresolved dependency type is printed as a bare name without its import: TS2552 downstream).
    dts: { compilerOptions: { customConditions: [] } },
    sourcemap: true,
    clean: true,
    fixedExtension: false,
    ...overrides,
  });
}
