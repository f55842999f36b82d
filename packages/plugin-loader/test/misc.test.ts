import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ConfigError,
  checkConfig,
  contextLengthFor,
  DEFAULT_CONTEXT_LENGTH,
  discoverEngines,
  engineNameProblem,
  loadEngine,
  parseConfigText,
  resolveModelSettings,
} from "../src/index.js";
import { captureLogger, engineSource, isolated, manifest, sandbox, writePlugin } from "./helpers.js";
import type { Sandbox } from "./helpers.js";

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

describe("model settings", () => {
  it("reads model: with the environment overriding it, and a context-length table", () => {
    const cfg = parseConfigText("model:\n  name: claude-sonnet-4\n  base_url: https://file.example/v1\n", null).config!;
    const s = resolveModelSettings(cfg, { OPENAI_BASE_URL: "http://127.0.0.1:9/v1", OPENAI_API_KEY: " k " });
    expect(s).toEqual({ model: "claude-sonnet-4", provider: null, baseUrl: "http://127.0.0.1:9/v1", apiKey: "k", contextLength: 200_000 });
    expect(resolveModelSettings(cfg, { OPENAI_MODEL: "gpt-4o" })).toMatchObject({ model: "gpt-4o", baseUrl: "https://file.example/v1" });
    const fromEnv = resolveModelSettings(parseConfigText("model:\n  context_length: 32000\n", null).config!, { OPENAI_MODEL: "gpt-4o" });
    expect(fromEnv).toMatchObject({ model: "gpt-4o", contextLength: 32_000 });
    expect(contextLengthFor("gpt-4.1-mini")).toBe(1_047_576);
    expect(contextLengthFor("some-local-model")).toBe(DEFAULT_CONTEXT_LENGTH);
    expect(contextLengthFor(undefined)).toBe(DEFAULT_CONTEXT_LENGTH);
  });
});

describe("names", () => {
  it("explains why a name is refused", () => {
    expect(engineNameProblem("lcm")).toBeNull();
    expect(engineNameProblem("my_engine-2")).toBeNull();
    expect(engineNameProblem("../x")).toMatch(/look like paths are refused/);
    expect(engineNameProblem("")).toMatch(/empty/);
    expect(engineNameProblem("a".repeat(65))).toMatch(/longer than 64/);
  });
});

describe("config objects and files", () => {
  it("a hand-built invalid config object is a ConfigError", async () => {
    const error = await loadEngine({ context: { engine: "x" }, bogus: 1 } as never, {}, isolated(box)).catch((e: unknown) => e);
    expect(ConfigError.is(error)).toBe(true);
    expect((error as ConfigError).problems.map((p) => p.key)).toEqual(["bogus"]);
  });

  it("a BOM at the start of config.yaml is ignored", () => {
    const { config, problems } = parseConfigText("\uFEFFcontext:\n  engine: lcm\n", "c.yaml");
    expect(problems).toEqual([]);
    expect(config?.context.engine).toBe("lcm");
  });

  it("engines.compressor is pointed at the compression block", async () => {
    const file = box.write("project/config.yaml", "engines:\n  compressor: { threshold: 0.5 }\n");
    const problems = await checkConfig(file, isolated(box));
    expect(problems).toEqual([expect.objectContaining({ key: "engines.compressor", line: 2, column: 3, expected: "compression:" })]);
  });

  it("checkConfig accepts an engine registered by a general plugin", async () => {
    box.write(
      "project/reg.js",
      `import { ContextEngine } from ${JSON.stringify((await import("./helpers.js")).CORE_URL)};
class R extends ContextEngine { get name() { return "viaplugin"; } updateFromResponse() {} shouldCompress() { return false; } compress(m) { return m; } }
export function register(ctx) { ctx.registerContextEngine(new R()); }`,
    );
    const file = box.write("project/config.yaml", "context:\n  engine: viaplugin\nengines:\n  viaplugin: {}\nplugins:\n  modules: [./reg.js]\n");
    expect(await checkConfig(file, isolated(box))).toEqual([]);
  });
});

describe("discovery details", () => {
  it("a bundled plugin also reachable as an npm package is listed once, without a warning", async () => {
    writePlugin(box, "bundled", "twin", engineSource("twin"));
    box.write("bundled/twin/package.json", JSON.stringify({ name: "@x/twin", version: "1.2.3", contextEngine: { name: "twin", entry: "index.js" } }));
    mkdirSync(join(box.cwd, "node_modules", "@x"), { recursive: true });
    symlinkSync(join(box.bundled, "twin"), join(box.cwd, "node_modules", "@x", "twin"));
    const logger = captureLogger();
    const d = await discoverEngines(
      { config: parseConfigText("", null).config!, file: null, baseDir: box.cwd, source: null, warnings: [] },
      { ...isolated(box, logger), nodeModules: [join(box.cwd, "node_modules")] },
    );
    expect(d.engines.get("twin")?.source).toBe("bundled");
    expect(d.shadowed).toEqual([]);
    expect(d.warnings).toEqual([]);
  });

  it("skips dot, underscore and empty directories; a directory with files but no plugin.yaml is broken", async () => {
    writePlugin(box, "bundled", "real", engineSource("real"));
    box.write("bundled/.hidden/plugin.yaml", manifest("hidden"));
    box.write("bundled/_private/plugin.yaml", manifest("private"));
    mkdirSync(join(box.bundled, "empty"));
    box.write("bundled/stray/notes.txt", "hello");
    const d = await discoverEngines({ config: parseConfigText("", null).config!, file: null, baseDir: box.cwd, source: null, warnings: [] }, isolated(box));
    expect([...d.engines.keys()].sort()).toEqual(["real", "stray"]);
    expect(d.engines.get("stray")?.problem).toMatch(/missing plugin\.yaml/);
  });
});

describe("registration slot", () => {
  it("refuses a registered engine whose name is not an identifier", async () => {
    const { EngineSlot } = await import("../src/index.js");
    const { isContextEngine } = await import("@context-engine/core");
    const logger = captureLogger();
    const slot = new EngineSlot(logger);
    const bad = { name: "../up", updateFromResponse() {}, shouldCompress: () => false, compress: (m: unknown) => m };
    expect(isContextEngine(bad)).toBe(true);
    expect(slot.register("p", bad)).toBe(false);
    expect(slot.engine).toBeNull();
    expect(logger.warnings()[0]).toMatch(/unusable name/);
    const good = { ...bad, name: "fine" };
    expect(slot.register("p", good)).toBe(true);
    expect(slot.register("q", { ...bad, name: "other" })).toBe(false);
    expect(slot.owner).toBe("p");
  });
});
