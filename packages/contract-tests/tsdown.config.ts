import { defineConfig } from "tsdown";

export default defineConfig({
  // Two entries: the kit (imports vitest) and the vitest-free fixtures.
  entry: ["src/index.ts", "src/fixtures.ts"],
  format: "esm",
  platform: "node",
  target: "node20",
  dts: true,
  sourcemap: true,
  clean: true,
  fixedExtension: false,
  // vitest is a peer dependency: the engine author's copy must run the suites.
  external: [/^vitest/, /^@context-engine\//],
});
