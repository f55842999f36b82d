import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isContextEngine } from "@context-engine/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EngineLoadError, loadEngine, parseConfigText } from "../src/index.js";
import type { ContextEngineConfig } from "../src/index.js";
import { captureLogger, CORE_URL, engineSource, isolated, manifest, sandbox, writePlugin } from "./helpers.js";
import type { Sandbox } from "./helpers.js";

function config(yaml: string): ContextEngineConfig {
  const parsed = parseConfigText(yaml, "config.yaml");
  if (!parsed.config) throw new Error(parsed.problems.map((p) => p.message).join("; "));
  return parsed.config;
}

async function loadError(promise: Promise<unknown>): Promise<EngineLoadError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(EngineLoadError.is(error), String(error)).toBe(true);
  return error as EngineLoadError;
}

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

describe("loadEngine: directory engines", () => {
  it("constructs the named bundled engine with its context", async () => {
    writePlugin(box, "bundled", "good", engineSource("good"));
    const logger = captureLogger();
    const cfg = config(`context:\n  engine: good\nmodel:\n  name: gpt-4o\n  context_length: 64000\ncompression:\n  model_thresholds: { "gpt-4o": 0.5 }\nengines:\n  good: { depth: 3 }\n`);
    const chatModel = { model: "m", complete: async () => ({ message: { role: "assistant" as const, content: "x" } }) };
    const loaded = await loadEngine(cfg, { chatModel }, isolated(box, logger));
    const engine = loaded.engine as unknown as { initContext: Record<string, unknown> } & typeof loaded.engine;
    expect(isContextEngine(engine)).toBe(true);
    expect(loaded).toMatchObject({ name: "good", source: "bundled", version: "1.2.3", fallbackReason: null });
    expect(engine.initContext.config).toEqual({ depth: 3 });
    expect(engine.initContext.contextLength).toBe(64000);
    expect(engine.initContext.model).toBe("gpt-4o");
    expect(engine.initContext.chatModel).toBe(chatModel);
    expect(engine.initContext.logger).toBe(logger);
    const dataDir = join(box.home, "data", "good");
    expect(engine.initContext.dataDir).toBe(dataDir);
    expect(existsSync(dataDir)).toBe(true);
    // model_thresholds reaches the engine before the host's first updateModel.
    expect(engine.modelThresholds).toEqual({ "gpt-4o": 0.5 });
    await engine.updateModel("gpt-4o", 64000);
    expect(engine.thresholdTokens).toBe(32000);
  });

  it("gives each call a fresh instance and a copy of the config section", async () => {
    writePlugin(box, "bundled", "good", engineSource("good"));
    const cfg = config("context:\n  engine: good\nengines:\n  good: { list: [1] }\n");
    const a = await loadEngine(cfg, {}, isolated(box));
    const b = await loadEngine(cfg, {}, isolated(box));
    expect(a.engine).not.toBe(b.engine);
    ((a.engine as unknown as { initContext: { config: { list: number[] } } }).initContext.config.list).push(2);
    expect(cfg.engines.good).toEqual({ list: [1] });
  });

  it("loads a user engine; a bundled engine of the same name wins with a warning", async () => {
    writePlugin(box, "user", "mine", engineSource("mine"));
    const user = await loadEngine(config("context:\n  engine: mine\n"), {}, isolated(box));
    expect(user.source).toBe("user");

    writePlugin(box, "user", "dup", engineSource("dup", { className: "UserDup" }));
    writePlugin(box, "bundled", "dup", engineSource("dup", { className: "BundledDup" }));
    const logger = captureLogger();
    const loaded = await loadEngine(config("context:\n  engine: dup\n"), {}, isolated(box, logger));
    expect(loaded.source).toBe("bundled");
    expect(loaded.engine.constructor.name).toBe("BundledDup");
    expect(loaded.warnings.join("\n")).toMatch(/user engine "dup" .* shadowed by the bundled engine/);
    expect(logger.warnings().join("\n")).toMatch(/shadowed/);
  });

  it("honours plugins.user_dir relative to the config file", async () => {
    box.write("project/myplugins/rel/plugin.yaml", manifest("rel"));
    box.write("project/myplugins/rel/index.js", engineSource("rel"));
    box.write("project/config.yaml", "context:\n  engine: rel\nplugins:\n  user_dir: ./myplugins\n");
    const { loadConfig } = await import("../src/index.js");
    const loaded = await loadConfig({ cwd: box.cwd, home: box.home });
    const { userDir: _drop, ...opts } = { ...isolated(box), userDir: undefined };
    const engine = await loadEngine(loaded, {}, opts);
    expect(engine).toMatchObject({ name: "rel", source: "user" });
  });

  it("uses plugin.yaml entry, then dist/index.js", async () => {
    box.write("bundled/custom/plugin.yaml", manifest("custom", "entry: lib/engine.js\n"));
    box.write("bundled/custom/lib/engine.js", engineSource("custom"));
    expect((await loadEngine(config("context:\n  engine: custom\n"), {}, isolated(box))).name).toBe("custom");
    box.write("bundled/built/plugin.yaml", manifest("built"));
    box.write("bundled/built/dist/index.js", engineSource("built"));
    box.write("bundled/built/index.js", "throw new Error('the source entry must not be used')");
    expect((await loadEngine(config("context:\n  engine: built\n"), {}, isolated(box))).name).toBe("built");
  });

  it("accepts a named-only export and a duck-typed engine class", async () => {
    writePlugin(box, "bundled", "named", engineSource("named", { exportDefault: false }));
    expect((await loadEngine(config("context:\n  engine: named\n"), {}, isolated(box))).name).toBe("named");
    writePlugin(
      box,
      "bundled",
      "duck",
      `// a ContextEngine look-alike without the base class
export class Duck { get name() { return "duck"; } updateFromResponse() {} shouldCompress() { return false; } compress(m) { return m; } }`,
    );
    const duck = await loadEngine(config("context:\n  engine: duck\n"), {}, isolated(box));
    expect(duck.name).toBe("duck");
  });
});

describe("loadEngine: broken plugins the user asked for", () => {
  const cases: Array<[string, (box: Sandbox) => void, RegExp, string]> = [
    ["bad plugin.yaml (syntax)", (b) => writePlugin(b, "bundled", "x", engineSource("x"), "name: x\nversion: [1\n"), /invalid plugin\.yaml: .*plugin\.yaml:\d+:\d+/, "broken_plugin"],
    ["bad plugin.yaml (missing key)", (b) => writePlugin(b, "bundled", "x", engineSource("x"), "name: x\ndescription: d\n"), /plugin\.yaml:1:1: version: required key is missing/, "broken_plugin"],
    ["missing plugin.yaml", (b) => b.write("bundled/x/index.js", engineSource("x")), /missing plugin\.yaml/, "broken_plugin"],
    ["import throws", (b) => writePlugin(b, "bundled", "x", "throw new Error('boom at import');"), /importing .*index\.js failed: boom at import/, "broken_plugin"],
    ["syntax error in module", (b) => writePlugin(b, "bundled", "x", "export const = ;"), /importing .* failed/, "broken_plugin"],
    ["no engine export", (b) => writePlugin(b, "bundled", "x", "export const notAnEngine = 1;"), /exports no ContextEngine subclass and no register\(ctx\)/, "broken_plugin"],
    ["plugin.yaml name mismatch", (b) => writePlugin(b, "bundled", "x", engineSource("x"), manifest("other")), /plugin\.yaml name "other" does not match its directory "x"/, "broken_plugin"],
    ["engine name mismatch", (b) => writePlugin(b, "bundled", "x", engineSource("notx")), /reports name "notx" but the plugin is named "x"/, "broken_plugin"],
    [
      "constructor throws",
      (b) => writePlugin(b, "bundled", "x", engineSource("x", { className: "Boom", extra: "" }).replace("super();", "super(); throw new Error('no database');")),
      /constructor threw: no database/,
      "broken_plugin",
    ],
    ["entry escapes the plugin dir", (b) => writePlugin(b, "bundled", "x", engineSource("x"), manifest("x", "entry: ../../evil.js\n")), /points outside the plugin directory/, "broken_plugin"],
    ["absolute entry", (b) => writePlugin(b, "bundled", "x", engineSource("x"), manifest("x", "entry: /etc/passwd\n")), /must be a path relative/, "broken_plugin"],
    ["entry not built", (b) => writePlugin(b, "bundled", "x", engineSource("x"), manifest("x", "entry: dist/index.js\n")), /entry "dist\/index\.js" not found .*is the plugin built/, "broken_plugin"],
    ["register throws and no class", (b) => writePlugin(b, "bundled", "x", "export function register() { throw new Error('kaput'); } // ContextEngine"), /register\(ctx\) threw: kaput/, "broken_plugin"],
  ];

  for (const [label, setup, reason, kind] of cases) {
    it(`${label}: typed error naming the reason`, async () => {
      writePlugin(box, "bundled", "fine", engineSource("fine"));
      setup(box);
      const error = await loadError(loadEngine(config("context:\n  engine: x\n"), {}, isolated(box)));
      expect(error.kind).toBe(kind);
      expect(error.engine).toBe("x");
      expect(error.reason).toMatch(reason);
      expect(error.message).toContain('cannot load context engine "x"');
      expect(error.available).toContain("fine");
    });
  }

  it("a module whose import or register(ctx) never finishes is given up on", async () => {
    writePlugin(box, "bundled", "hang", "await new Promise(() => {}); // ContextEngine");
    const error = await loadError(loadEngine(config("context:\n  engine: hang\n"), {}, { ...isolated(box), pluginTimeoutMs: 150 }));
    expect(error.reason).toMatch(/the import did not finish within 150 ms/);
    writePlugin(box, "bundled", "slowreg", "export function register() { return new Promise(() => {}); } // ContextEngine");
    const reg = await loadError(loadEngine(config("context:\n  engine: slowreg\n"), {}, { ...isolated(box), pluginTimeoutMs: 150 }));
    expect(reg.reason).toMatch(/^register\(ctx\) did not finish within 150 ms, and the module exports no ContextEngine subclass$/);
  });

  it("an entry symlinked outside the plugin dir is refused", async () => {
    box.write("outside/engine.js", engineSource("x"));
    mkdirSync(join(box.bundled, "x"), { recursive: true });
    writeFileSync(join(box.bundled, "x", "plugin.yaml"), manifest("x"));
    symlinkSync(join(box.root, "outside/engine.js"), join(box.bundled, "x", "index.js"));
    const error = await loadError(loadEngine(config("context:\n  engine: x\n"), {}, isolated(box)));
    expect(error.reason).toMatch(/links outside the plugin directory/);
  });

  it("engine config rejected by the plugin's configSchema names config.yaml position", async () => {
    writePlugin(
      box,
      "bundled",
      "x",
      engineSource("x", { extra: `export const configSchema = { safeParse(v) { return v.n === 1 ? { success: true } : { success: false, error: { issues: [{ code: "invalid_type", expected: "number", path: ["n"], message: "expected number", input: v.n }] } }; } };` }),
    );
    const { loadConfig } = await import("../src/index.js");
    box.write("project/config.yaml", "context:\n  engine: x\nengines:\n  x:\n    n: nope\n");
    const loaded = await loadConfig({ cwd: box.cwd, home: box.home });
    const error = await loadError(loadEngine(loaded, {}, isolated(box)));
    expect(error.reason).toMatch(/invalid config: .*config\.yaml:5:8: engines\.x\.n: expected number/);
  });

  it("unknown engine lists what is available", async () => {
    writePlugin(box, "bundled", "alpha", engineSource("alpha"));
    writePlugin(box, "user", "beta", engineSource("beta"));
    writePlugin(box, "bundled", "broken", "throw 1");
    const error = await loadError(loadEngine(config("context:\n  engine: gamma\n"), {}, isolated(box)));
    expect(error.kind).toBe("unknown_engine");
    expect(error.available).toEqual(["alpha", "beta", "broken", "compressor"]);
    expect(error.message).toMatch(/no engine named "gamma" was found; available engines: alpha, beta, broken, compressor/);
  });

  it("refuses names that could escape the plugins directory, without touching the file system", async () => {
    box.write("home/evil/plugin.yaml", manifest("evil"));
    for (const name of ["../evil", "..", "a/b", "/etc", "Good"]) {
      const error = await loadError(loadEngine(undefined, {}, { ...isolated(box), engine: name }));
      expect(error.kind, name).toBe("invalid_name");
    }
  });

  it("a plugin directory whose name is not an identifier is listed as broken, never loaded", async () => {
    writePlugin(box, "bundled", "Bad.Name", engineSource("Bad.Name"));
    const { listEngines } = await import("../src/index.js");
    const rows = await listEngines({ ...isolated(box), config: config(""), probe: "none" });
    expect(rows.find((r) => r.name === "Bad.Name")?.status).toMatch(/directory name refused/);
  });
});

describe("loadEngine: user directory heuristic", () => {
  it("a user module that never mentions ContextEngine is not imported", async () => {
    const marker = join(box.root, "imported");
    writePlugin(box, "user", "stranger", `import { writeFileSync } from "node:fs"; writeFileSync(${JSON.stringify(marker)}, "x"); export class S {}`);
    const error = await loadError(loadEngine(config("context:\n  engine: stranger\n"), {}, isolated(box)));
    expect(error.reason).toMatch(/does not look like a context engine/);
    expect(existsSync(marker)).toBe(false);
  });
});

describe("register(ctx)", () => {
  it("a directory plugin may register its engine through register(ctx)", async () => {
    writePlugin(
      box,
      "bundled",
      "reg",
      `import { ContextEngine } from ${JSON.stringify(CORE_URL)};
class Reg extends ContextEngine {
  constructor(ctx) { super(); this.initContext = ctx; }
  get name() { return "reg"; }
  updateFromResponse() {} shouldCompress() { return false; } compress(m) { return m; }
}
export function register(ctx) { ctx.registerContextEngine(new Reg(ctx)); }`,
    );
    const loaded = await loadEngine(config("context:\n  engine: reg\nengines:\n  reg: { k: 1 }\n"), { contextLength: 1000 }, isolated(box));
    const ctx = (loaded.engine as unknown as { initContext: Record<string, unknown> }).initContext;
    expect(ctx.config).toEqual({ k: 1 });
    expect(ctx.contextLength).toBe(1000);
    expect(ctx.pluginName).toBe("reg");
  });

  it("general plugins: the first registration wins, the second is refused naming both plugins", async () => {
    const gen = (engineName: string) => `import { ContextEngine } from ${JSON.stringify(CORE_URL)};
class G extends ContextEngine {
  constructor(ctx) { super(); this.initContext = ctx; }
  get name() { return ${JSON.stringify(engineName)}; }
  updateFromResponse() {} shouldCompress() { return false; } compress(m) { return m; }
}
export function register(ctx) { ctx.registerContextEngine(new G(ctx.engineContext(${JSON.stringify(engineName)}))); }`;
    box.write("project/first-plugin.js", gen("alpha"));
    box.write("project/second-plugin.js", gen("beta"));
    box.write("project/config.yaml", "context:\n  engine: alpha\nengines:\n  alpha: { a: 1 }\nplugins:\n  modules: [./first-plugin.js, ./second-plugin.js]\n");
    const { loadConfig } = await import("../src/index.js");
    const cfg = await loadConfig({ cwd: box.cwd, home: box.home });
    const logger = captureLogger();
    const loaded = await loadEngine(cfg, {}, isolated(box, logger));
    expect(loaded).toMatchObject({ name: "alpha", source: "registered", origin: "first-plugin" });
    expect((loaded.engine as unknown as { initContext: { config: unknown } }).initContext.config).toEqual({ a: 1 });
    const refused = loaded.warnings.find((w) => w.includes("only one context engine"));
    expect(refused).toMatch(/plugin "second-plugin" tried to register context engine "beta", but plugin "first-plugin" already registered "alpha"/);
    expect(logger.warnings()).toContain(refused);

    // The refused engine cannot be selected.
    const error = await loadError(loadEngine({ ...cfg, config: { ...cfg.config, context: { engine: "beta" } } }, {}, isolated(box)));
    expect(error.kind).toBe("unknown_engine");
    expect(error.available).toContain("alpha");
  });

  it("slot-taken is checked before the type of the second registration", async () => {
    box.write(
      "project/p1.js",
      `import { ContextEngine } from ${JSON.stringify(CORE_URL)};
class A extends ContextEngine { get name() { return "a"; } updateFromResponse() {} shouldCompress() { return false; } compress(m) { return m; } }
export function register(ctx) { ctx.registerContextEngine(new A()); }`,
    );
    box.write("project/p2.js", `export function register(ctx) { ctx.result = ctx.registerContextEngine({ not: "an engine" }); }`);
    box.write("project/config.yaml", "plugins:\n  modules: [./p1.js, ./p2.js]\n");
    const { loadConfig } = await import("../src/index.js");
    const cfg = await loadConfig({ cwd: box.cwd, home: box.home });
    const loaded = await loadEngine(cfg, {}, { ...isolated(box), engine: "a" });
    expect(loaded.warnings.join("\n")).toMatch(/plugin "p2" tried to register context engine, but plugin "p1" already registered "a"/);
  });

  it("a singleton registered twice needs cloneForAgent(), else a clear error", async () => {
    const src = (withClone: boolean) => `import { ContextEngine } from ${JSON.stringify(CORE_URL)};
class S extends ContextEngine {
  get name() { return "single"; } updateFromResponse() {} shouldCompress() { return false; } compress(m) { return m; }
  ${withClone ? "cloneForAgent() { const c = new S(); c.modelThresholds = { ...this.modelThresholds }; return c; }" : ""}
}
const instance = new S();
export function register(ctx) { ctx.registerContextEngine(instance); }`;
    box.write("project/noclone.js", src(false));
    box.write("project/withclone.js", src(true));
    const { loadConfig } = await import("../src/index.js");
    box.write("project/config.yaml", "context:\n  engine: single\nplugins:\n  modules: [./noclone.js]\n");
    const cfg = await loadConfig({ cwd: box.cwd, home: box.home });
    const first = await loadEngine(cfg, {}, isolated(box));
    expect(first.name).toBe("single");
    const error = await loadError(loadEngine(cfg, {}, isolated(box)));
    expect(error.reason).toMatch(/already in use by another agent.*no cloneForAgent/);

    box.write("project/config.yaml", "context:\n  engine: single\nplugins:\n  modules: [./withclone.js]\n");
    const cfg2 = await loadConfig({ cwd: box.cwd, home: box.home });
    const a = await loadEngine(cfg2, {}, isolated(box));
    const b = await loadEngine(cfg2, {}, isolated(box));
    expect(b.engine).not.toBe(a.engine);
    await b.engine.updateModel("m", 1000);
    expect(a.engine.contextLength).toBe(0);
  });
});

describe("npm engines", () => {
  it("discovers an installed package declaring contextEngine", async () => {
    const nm = join(box.cwd, "node_modules");
    box.write("project/node_modules/@acme/ce-fancy/package.json", JSON.stringify({ name: "@acme/ce-fancy", version: "2.0.0", description: "Fancy", contextEngine: { name: "fancy" }, exports: { ".": { import: "./lib/main.js" } } }));
    box.write("project/node_modules/@acme/ce-fancy/lib/main.js", engineSource("fancy"));
    box.write("project/node_modules/unrelated/package.json", JSON.stringify({ name: "unrelated", version: "1.0.0" }));
    box.write("project/node_modules/broken-ce/package.json", JSON.stringify({ name: "broken-ce", version: "1.0.0", contextEngine: { name: "Bad Name" } }));
    const loaded = await loadEngine(config("context:\n  engine: fancy\n"), {}, { ...isolated(box), nodeModules: [nm] });
    expect(loaded).toMatchObject({ name: "fancy", source: "npm", version: "2.0.0", origin: "@acme/ce-fancy" });
    const { listEngines } = await import("../src/index.js");
    const rows = await listEngines({ ...isolated(box), nodeModules: [nm], config: config("") });
    expect(rows.find((r) => r.source === "npm" && r.name === "broken-ce")?.status).toMatch(/contextEngine\.name/);
    expect(rows.some((r) => r.name === "unrelated")).toBe(false);
  });

  it("scans node_modules from the working directory by default", async () => {
    box.write("project/node_modules/ce-auto/package.json", JSON.stringify({ name: "ce-auto", version: "0.1.0", contextEngine: { name: "auto", entry: "./engine.js" } }));
    box.write("project/node_modules/ce-auto/engine.js", engineSource("auto"));
    const { nodeModules: _omit, ...opts } = isolated(box);
    const loaded = await loadEngine(config("context:\n  engine: auto\n"), {}, opts);
    expect(loaded.source).toBe("npm");
  });
});
