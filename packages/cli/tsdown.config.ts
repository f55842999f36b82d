import { defineConfig } from "tsdown";

export default defineConfig({
  // bin.ts keeps its shebang; index.ts is the library API (report model, replay runner).
  entry: ["src/index.ts", "src/bin.ts"],
  format: "esm",
  platform: "node",
  target: "node20",
  dts: true,
  sourcemap: true,
  clean: true,
  fixedExtension: false,
});
