import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { manifest, sandbox, type Sandbox } from "./helpers.js";

// A real Node process loads the built loader (dist/, built before tests), so Node's own module
// resolution — not vitest's — decides whether a directory engine finds @context-engine/core.
const LOADER_URL = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), "../dist/index.js")).href;

const ESM_ENGINE = `import { ContextEngine } from "@context-engine/core";
export default class DirEngine extends ContextEngine {
  get name() { return "dir"; }
  updateFromResponse(usage) { this.recordUsage(usage); }
  shouldCompress(tokens) { return this.thresholdTokens > 0 && (tokens ?? this.lastPromptTokens) >= this.thresholdTokens; }
  compress(messages) { return messages; }
}
`;

const CJS_ENGINE = `const { ContextEngine } = require("@context-engine/core");
class DirEngine extends ContextEngine {
  get name() { return "dir"; }
  updateFromResponse(usage) { this.recordUsage(usage); }
  shouldCompress(tokens) { return this.thresholdTokens > 0 && (tokens ?? this.lastPromptTokens) >= this.thresholdTokens; }
  compress(messages) { return messages; }
}
module.exports = DirEngine;
`;

function loadInNode(box: Sandbox): { status: number | null; out: string } {
  const script = `
import { loadEngine, parseConfigText } from ${JSON.stringify(LOADER_URL)};
const { config } = parseConfigText("context:\\n  engine: dir\\n", "config.yaml");
const loaded = await loadEngine(config, {}, { cwd: ${JSON.stringify(box.cwd)}, home: ${JSON.stringify(box.home)}, bundledDir: ${JSON.stringify(box.bundled)}, nodeModules: false, env: {} });
console.log("loaded", loaded.name, loaded.source, loaded.engine.name);
`;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: box.cwd, encoding: "utf8", timeout: 60_000 });
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

describe("a directory engine resolves @context-engine/core from the host", () => {
  const dir = "home/plugins/context_engine/dir";
  const cases: Array<[string, Record<string, unknown> | null, string]> = [
    ["ESM without a package.json", null, ESM_ENGINE],
    ['ESM syntax in a "type": "commonjs" package (npm init -y)', { name: "dir", version: "1.0.0", type: "commonjs" }, ESM_ENGINE],
    ["an ESM package", { name: "dir", version: "1.0.0", type: "module" }, ESM_ENGINE],
    ["a CommonJS module using require", { name: "dir", version: "1.0.0", type: "commonjs" }, CJS_ENGINE],
  ];
  for (const [label, pkg, source] of cases) {
    it(label, () => {
      box.write(`${dir}/plugin.yaml`, manifest("dir"));
      if (pkg) box.write(`${dir}/package.json`, JSON.stringify(pkg));
      box.write(`${dir}/index.js`, source);
      const { status, out } = loadInNode(box);
      expect(out).toContain("loaded dir user dir");
      expect(status).toBe(0);
    }, 60_000);
  }
});
