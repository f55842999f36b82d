import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EngineLoadError, listEngines, loadEngine, parseConfigText } from "../src/index.js";
import type { ContextEngineConfig } from "../src/index.js";
import { captureLogger, engineSource, isolated, sandbox, writePlugin } from "./helpers.js";
import type { Sandbox } from "./helpers.js";

function config(yaml: string): ContextEngineConfig {
  const parsed = parseConfigText(yaml, "config.yaml");
  if (!parsed.config) throw new Error(parsed.problems.map((p) => p.message).join("; "));
  return parsed.config;
}

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

describe("the built-in compressor", () => {
  it("is the default, and selecting it never imports a plugin", async () => {
    const marker = join(box.root, "imported");
    writePlugin(box, "bundled", "spy", `import { writeFileSync } from "node:fs"; writeFileSync(${JSON.stringify(marker)}, "x"); // ContextEngine`);
    box.write("project/node_modules/ce-spy/package.json", JSON.stringify({ name: "ce-spy", version: "1.0.0", contextEngine: { name: "spy2", entry: "i.js" } }));
    box.write("project/node_modules/ce-spy/i.js", `import { writeFileSync } from "node:fs"; writeFileSync(${JSON.stringify(marker)}, "x");`);
    for (const cfg of [undefined, config(""), config("context:\n  engine: compressor\n")]) {
      const { nodeModules: _n, ...opts } = isolated(box);
      const loaded = await loadEngine(cfg, {}, opts);
      expect(loaded).toMatchObject({ name: "compressor", source: "builtin", origin: "built-in", fallbackReason: null });
      expect(loaded.engine.name).toBe("compressor");
    }
    expect(existsSync(marker)).toBe(false);
  });

  it("gets the compression block, the model's window and model_thresholds", async () => {
    const cfg = config(`model:\n  name: gpt-4o-mini\n  context_length: 100000\ncompression:\n  threshold: 0.6\n  model_thresholds: { "gpt-4o": 0.5, "gpt-4o-mini": 0.4 }\n`);
    const { engine, initContext } = await loadEngine(cfg, {}, isolated(box));
    expect(initContext.config).toMatchObject({ threshold: 0.6 });
    expect(initContext.contextLength).toBe(100000);
    expect(initContext.dataDir).toBe(join(box.home, "data", "compressor"));
    expect(engine.modelThresholds).toEqual({ "gpt-4o": 0.5, "gpt-4o-mini": 0.4 });
    await engine.updateModel("gpt-4o-mini", 100000);
    expect(engine.thresholdTokens).toBe(40000);
    await engine.updateModel("other-model", 100000);
    expect(engine.thresholdTokens).toBe(60000);
  });

  it("a distribution default that fails falls back to the compressor with the reason", async () => {
    writePlugin(box, "bundled", "flaky", engineSource("flaky").replace("super();", "super(); throw new Error('no GPU');"));
    const logger = captureLogger();
    const loaded = await loadEngine(config(""), {}, { ...isolated(box, logger), defaultEngine: "flaky" });
    expect(loaded.name).toBe("compressor");
    expect(loaded.fallbackReason).toMatch(/context engine "flaky" cannot be loaded: .*constructor threw: no GPU/);
    expect(logger.warnings().join("\n")).toMatch(/falling back to the built-in compressor/);
    const missing = await loadEngine(config(""), {}, { ...isolated(box), defaultEngine: "ghost" });
    expect(missing.fallbackReason).toMatch(/no engine named "ghost"/);
  });

  it("the same failure is an error when the user asked for the engine", async () => {
    writePlugin(box, "bundled", "flaky", engineSource("flaky").replace("super();", "super(); throw new Error('no GPU');"));
    const error = await loadEngine(config("context:\n  engine: flaky\n"), {}, { ...isolated(box), defaultEngine: "compressor" }).catch((e: unknown) => e);
    expect(EngineLoadError.is(error)).toBe(true);
    expect((error as EngineLoadError).reason).toMatch(/no GPU/);
  });

  it("listEngines constructs it and marks it active by default", async () => {
    const rows = await listEngines({ ...isolated(box), config: config("") });
    expect(rows[0]).toMatchObject({ name: "compressor", source: "builtin", status: "ok", active: true });
    expect(rows[0]?.version).toMatch(/^\d+\.\d+\.\d+/);
  });
});
