// Prints how long discovery and loading take: many plugin dirs, the workspace node_modules scan,
// and a full loadEngine of a directory engine. No assertions; figures only.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { defaultConfig, discoverEngines, loadEngine, listEngines } from "../src/index.js";
import { silentLogger } from "@context-engine/core";

const here = dirname(fileURLToPath(import.meta.url));
const coreUrl = pathToFileURL(join(here, "../../core/dist/index.js")).href;
const root = mkdtempSync(join(tmpdir(), "ce-bench-"));
const bundled = join(root, "bundled");
const PLUGINS = 200;
for (let i = 0; i < PLUGINS; i++) {
  const name = `engine${i}`;
  mkdirSync(join(bundled, name), { recursive: true });
  writeFileSync(join(bundled, name, "plugin.yaml"), `name: ${name}\ndescription: bench\nversion: 1.0.0\n`);
  writeFileSync(
    join(bundled, name, "index.js"),
    `import { ContextEngine } from ${JSON.stringify(coreUrl)};
export default class E extends ContextEngine { get name() { return ${JSON.stringify(name)}; } updateFromResponse() {} shouldCompress() { return false; } compress(m) { return m; } }`,
  );
}
const loaded = { config: defaultConfig(), file: null, baseDir: root, source: null, warnings: [] };
const opts = { cwd: root, home: join(root, "home"), bundledDir: bundled, nodeModules: false as const, env: {}, logger: silentLogger };

async function time(label: string, runs: number, fn: () => Promise<unknown>) {
  await fn();
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) await fn();
  console.log(`${label}: ${((performance.now() - t0) / runs).toFixed(2)} ms/op (${runs} runs)`);
}

await time(`discover ${PLUGINS} plugin dirs (plugin.yaml only)`, 20, () => discoverEngines(loaded, opts));
const workspace = join(here, "../../..");
await time("scan workspace node_modules for npm engines", 20, () =>
  discoverEngines(loaded, { ...opts, bundledDir: null, userDir: null, nodeModules: undefined, cwd: join(workspace, "packages/cli") }),
);
const cfg = { ...defaultConfig(), context: { engine: "engine7" } };
await time(`loadEngine of one directory engine among ${PLUGINS}`, 20, () => loadEngine(cfg, {}, opts));
await time(`listEngines (construct all ${PLUGINS})`, 3, () => listEngines({ ...opts, config: { ...cfg, context: {} } }).catch(() => []));
rmSync(root, { recursive: true, force: true });
