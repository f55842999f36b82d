import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError, checkConfig, formatConfigProblem, loadConfig, parseConfigText, findConfigFile } from "../src/index.js";
import { engineSource, isolated, manifest, sandbox, writePlugin } from "./helpers.js";
import type { Sandbox } from "./helpers.js";

const FULL = `context:
  engine: compressor
model:
  name: gpt-4o-mini
  provider: openai
  base_url: https://api.example.com/v1
  context_length: 128000
compression:
  threshold: 0.7
  protect_last_n: 8
  model_thresholds: { "gpt-4o": 0.6, "openrouter:claude": 0.8 }
  context_timeout_seconds: 0
engines:
  lcm: { fresh_tail_count: 32 }
plugins:
  user_dir: ~/.context-engine/plugins
host:
  max_iterations: 40
  prompt_cache: auto
`;

describe("parseConfigText", () => {
  it("accepts the documented layout and applies defaults", () => {
    const { config, problems } = parseConfigText(FULL, "config.yaml");
    expect(problems).toEqual([]);
    expect(config?.context.engine).toBe("compressor");
    expect(config?.compression.threshold).toBe(0.7);
    expect(config?.compression.protect_first_n).toBe(3);
    expect(config?.compression.model_thresholds).toEqual({ "gpt-4o": 0.6, "openrouter:claude": 0.8 });
    expect(config?.engines.lcm).toEqual({ fresh_tail_count: 32 });
    expect(config?.plugins.modules).toEqual([]);
    expect(config?.host).toEqual({ max_iterations: 40, prompt_cache: "auto" });
  });

  it("checks the host section like every other, with positions", () => {
    const { problems } = parseConfigText("host:\n  prompt_cache: always\n  max_iteration: 3\n", "config.yaml");
    expect(problems.map((p) => [p.key, p.line])).toEqual([
      ["host.prompt_cache", 2],
      ["host.max_iteration", 3],
    ]);
  });

  it("treats an empty file and empty sections as defaults", () => {
    expect(parseConfigText("", "c.yaml").config?.context.engine).toBeUndefined();
    const { config, problems } = parseConfigText("context:\nengines:\n  lcm:\n", "c.yaml");
    expect(problems).toEqual([]);
    expect(config?.engines).toEqual({ lcm: {} });
  });

  it("reports an unknown key with its own line and column", () => {
    const { config, problems } = parseConfigText("context:\n  engine: lcm\n  enigne: x\ncompresion:\n  threshold: 0.5\n", "cfg.yaml");
    expect(config).toBeNull();
    const keys = problems.map((p) => [p.key, p.line, p.column]);
    expect(keys).toContainEqual(["context.enigne", 3, 3]);
    expect(keys).toContainEqual(["compresion", 4, 1]);
    expect(problems.every((p) => p.file === "cfg.yaml" && p.severity === "error")).toBe(true);
  });

  it("suggests the intended key and lists the allowed ones", () => {
    const { problems } = parseConfigText("compression:\n  threshhold: 0.5\n", "cfg.yaml");
    expect(problems[0]).toMatchObject({ key: "compression.threshhold", line: 2, column: 3 });
    expect(problems[0]?.message).toContain('did you mean "threshold"?');
    expect(problems[0]?.expected).toMatch(/^one of .*protect_last_n/);
  });

  it("names the key, position and expectation of a wrong type", () => {
    const { problems } = parseConfigText("compression:\n  threshold: high\n  protect_last_n: -2\n", "cfg.yaml");
    const threshold = problems.find((p) => p.key === "compression.threshold");
    expect(threshold).toMatchObject({ line: 2, column: 14, expected: "a number" });
    const tail = problems.find((p) => p.key === "compression.protect_last_n");
    expect(tail?.line).toBe(3);
    expect(tail?.expected).toMatch(/at least/);
    expect(formatConfigProblem(threshold!)).toMatch(/^cfg\.yaml:2:14: compression\.threshold: /);
  });

  it("refuses engine names that could be paths", () => {
    for (const bad of ["../evil", "a/b", "Lcm", "~root", "9lives"]) {
      const { problems } = parseConfigText(`context:\n  engine: ${JSON.stringify(bad)}\n`, "cfg.yaml");
      expect(problems.map((p) => p.key), bad).toContain("context.engine");
    }
    const { problems } = parseConfigText('engines:\n  "../x": {}\n', "cfg.yaml");
    expect(problems[0]?.key).toBe("engines.../x");
  });

  it("positions YAML syntax errors and duplicate keys", () => {
    const syntax = parseConfigText("context:\n  engine: [unclosed\n", "cfg.yaml");
    expect(syntax.config).toBeNull();
    expect(syntax.problems[0]?.line).toBeGreaterThanOrEqual(2);
    expect(syntax.problems[0]?.message).toMatch(/YAML syntax error/);
    const dup = parseConfigText("context:\n  engine: a\ncontext:\n  engine: b\n", "cfg.yaml");
    expect(dup.problems[0]).toMatchObject({ line: 3, severity: "error" });
  });

  it("has one name for the window: model.context_window is read as model.context_length, with a positioned note", () => {
    const { config, problems } = parseConfigText("model:\n  name: m\n  context_window: 32000\n", "config.yaml");
    expect(config!.model.context_length).toBe(32000);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ key: "model.context_window", line: 3, severity: "warning" });
    expect(formatConfigProblem(problems[0]!)).toMatch(/config\.yaml:3:3: warning: model\.context_window: model\.context_window is read as model\.context_length/);
    expect(parseConfigText("model:\n  context_length: 8000\n  context_window: 8000\n").config!.model.context_length).toBe(8000);
    const clash = parseConfigText("model:\n  context_length: 8000\n  context_window: 16000\n", "config.yaml");
    expect(clash.config).toBeNull();
    expect(clash.problems[0]).toMatchObject({ key: "model.context_window", severity: "error" });
    expect(clash.problems[0]!.message).toMatch(/disagrees with model\.context_length/);
  });

  it("rejects a file that is not a mapping", () => {
    const { problems } = parseConfigText("- a\n- b\n", "cfg.yaml");
    expect(problems[0]?.message).toMatch(/a list/);
  });
});

describe("loadConfig / findConfigFile", () => {
  let box: Sandbox;
  beforeEach(() => {
    box = sandbox();
  });
  afterEach(() => box.cleanup());

  it("prefers ./config.yaml over the home one and falls back to defaults", async () => {
    expect(findConfigFile({ cwd: box.cwd, home: box.home })).toBeNull();
    expect((await loadConfig({ cwd: box.cwd, home: box.home })).file).toBeNull();
    const homeFile = box.write("home/config.yaml", "context:\n  engine: lcm\n");
    expect(findConfigFile({ cwd: box.cwd, home: box.home })).toBe(homeFile);
    const local = box.write("project/config.yaml", "context:\n  engine: other\n");
    const loaded = await loadConfig({ cwd: box.cwd, home: box.home });
    expect(loaded.file).toBe(local);
    expect(loaded.config.context.engine).toBe("other");
  });

  it("finds the home through CONTEXT_ENGINE_HOME", async () => {
    box.write("home/config.yaml", "context:\n  engine: lcm\n");
    const loaded = await loadConfig({ cwd: box.cwd, env: { CONTEXT_ENGINE_HOME: box.home } });
    expect(loaded.config.context.engine).toBe("lcm");
  });

  it("throws a ConfigError listing every problem", async () => {
    const file = box.write("project/config.yaml", "context:\n  engine: 5\nbogus: 1\n");
    const error = await loadConfig({ cwd: box.cwd, home: box.home }).catch((e: unknown) => e);
    expect(ConfigError.is(error)).toBe(true);
    const problems = (error as ConfigError).problems;
    expect(problems.map((p) => p.key).sort()).toEqual(["bogus", "context.engine"]);
    expect((error as Error).message).toContain(`${file}:2:11: context.engine`);
  });
});

describe("checkConfig", () => {
  let box: Sandbox;
  beforeEach(() => {
    box = sandbox();
  });
  afterEach(() => box.cleanup());

  it("reports a missing file", async () => {
    const problems = await checkConfig(box.root + "/nope.yaml");
    expect(problems).toEqual([expect.objectContaining({ message: "file not found", severity: "error" })]);
  });

  it("returns no problems for a valid config", async () => {
    const file = box.write("project/config.yaml", "context:\n  engine: compressor\n");
    expect(await checkConfig(file, isolated(box))).toEqual([]);
  });

  it("lists available engines for an unknown context.engine", async () => {
    writePlugin(box, "bundled", "good", engineSource("good"));
    const file = box.write("project/config.yaml", "context:\n  engine: nosuch\n");
    const problems = await checkConfig(file, isolated(box));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ key: "context.engine", line: 2, column: 11, expected: "one of compressor, good" });
  });

  it("validates an engine section with the plugin's configSchema, positioned in config.yaml", async () => {
    writePlugin(
      box,
      "bundled",
      "good",
      engineSource("good", { extra: `export const configSchema = { safeParse(v) { return typeof v.size === "number" ? { success: true, data: v } : { success: false, error: { issues: [{ code: "invalid_type", expected: "number", path: ["size"], message: "Invalid input: expected number, received string", input: v.size }] } }; } };` }),
    );
    const file = box.write("project/config.yaml", "context:\n  engine: good\nengines:\n  good:\n    size: big\n  missing: {}\n");
    const problems = await checkConfig(file, isolated(box));
    const size = problems.find((p) => p.key === "engines.good.size");
    expect(size).toMatchObject({ line: 5, column: 11, expected: "a number", severity: "error" });
    const missing = problems.find((p) => p.key === "engines.missing");
    expect(missing).toMatchObject({ line: 6, column: 3, severity: "warning" });
  });

  it("warns that a section of an engine without a configSchema reaches it unchecked", async () => {
    writePlugin(box, "bundled", "plain", engineSource("plain"));
    const file = box.write("project/config.yaml", "engines:\n  plain:\n    anything: 1\n");
    const problems = await checkConfig(file, isolated(box));
    expect(problems).toEqual([expect.objectContaining({ key: "engines.plain", line: 2, severity: "warning", message: expect.stringMatching(/publishes no configSchema/) })]);
  });

  it("reports schema errors and engine problems together, in line order", async () => {
    writePlugin(
      box,
      "bundled",
      "good",
      engineSource("good", { extra: `export const configSchema = { safeParse(v) { return typeof v.size === "number" ? { success: true, data: v } : { success: false, error: { issues: [{ code: "invalid_type", expected: "number", path: ["size"], message: "Invalid input: expected number, received string", input: v.size }] } }; } };` }),
    );
    // A bad compression block (line 2) must not hide the unknown engine (line 6) nor a module that is missing (line 9).
    const file = box.write(
      "project/config.yaml",
      "compression:\n  threshold: 7\nmodel:\n  contxt_length: 5\ncontext:\n  engine: nosuch\nplugins:\n  modules:\n    - ./nowhere.js\n",
    );
    const problems = await checkConfig(file, isolated(box));
    expect(problems.map((p) => [p.line, p.key])).toEqual([
      [2, "compression.threshold"],
      [4, "model.contxt_length"],
      [6, "context.engine"],
      [9, "plugins.modules[0]"],
    ]);
  });

  it("reports a broken selected engine and unresolvable plugins.modules", async () => {
    box.write("bundled/bad/plugin.yaml", "name: bad\n");
    box.write("bundled/bad/index.js", "export const x = 1; // ContextEngine\n");
    const file = box.write("project/config.yaml", "context:\n  engine: bad\nplugins:\n  modules:\n    - ./nowhere.js\n");
    const problems = await checkConfig(file, isolated(box));
    expect(problems.find((p) => p.key === "context.engine")?.message).toMatch(/broken: invalid plugin\.yaml/);
    expect(problems.find((p) => p.key === "plugins.modules[0]")).toMatchObject({ line: 5, message: expect.stringMatching(/not found/) });
  });
});
