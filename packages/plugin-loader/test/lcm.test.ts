import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkConfig, EngineLoadError, listEngines, loadConfig, loadEngine } from "../src/index.js";
import { captureLogger, REPO_ROOT, sandbox } from "./helpers.js";
import type { Sandbox } from "./helpers.js";

const LCM_DIST = join(REPO_ROOT, "plugins/context_engine/lcm/dist/index.js");
const built = existsSync(LCM_DIST);
if (!built) console.warn(`[plugin-loader] skipping the LCM plugin tests: ${LCM_DIST} is not built (run npx tsdown in plugins/context_engine/lcm)`);

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

// Discovery uses the default bundled directory: the repository's plugins/context_engine.
const opts = (b: Sandbox) => ({ cwd: b.cwd, home: b.home, nodeModules: false as const, env: {}, logger: captureLogger() });

describe.skipIf(!built)("the real LCM plugin from the repository", () => {
  it("is discovered, loaded with its config section and ready for a session", async () => {
    box.write("project/config.yaml", "context:\n  engine: lcm\nmodel:\n  name: gpt-4o\ncompression:\n  model_thresholds: { gpt-4o: 0.5 }\nengines:\n  lcm:\n    fresh_tail_count: 8\n");
    const config = await loadConfig({ cwd: box.cwd, home: box.home });
    const loaded = await loadEngine(config, { contextLength: 128_000 }, opts(box));
    expect(loaded).toMatchObject({ name: "lcm", source: "bundled", fallbackReason: null });
    expect(loaded.origin).toBe(join(REPO_ROOT, "plugins/context_engine/lcm/plugin.yaml"));
    expect(loaded.initContext.config).toEqual({ fresh_tail_count: 8 });
    expect(existsSync(join(box.home, "data", "lcm"))).toBe(true);
    const { engine } = loaded;
    expect(engine.modelThresholds).toEqual({ "gpt-4o": 0.5 });
    await engine.updateModel("gpt-4o", 128_000);
    await engine.onSessionStart("s1", {});
    expect(engine.getToolSchemas().map((t) => t.name)).toEqual(expect.arrayContaining(["lcm_grep"]));
    engine.updateFromResponse({ prompt_tokens: 1000, completion_tokens: 10, total_tokens: 1010 });
    expect(engine.getStatus()).toMatchObject({ name: "lcm", lastPromptTokens: 1000, contextLength: 128_000 });
    await engine.onSessionEnd("s1", []);
  });

  it("rejects an invalid engines.lcm section with its config.yaml position", async () => {
    box.write("project/config.yaml", "context:\n  engine: lcm\nengines:\n  lcm:\n    fresh_tail_count: lots\n");
    const config = await loadConfig({ cwd: box.cwd, home: box.home });
    const error = await loadEngine(config, {}, opts(box)).catch((e: unknown) => e);
    expect(EngineLoadError.is(error)).toBe(true);
    expect((error as EngineLoadError).reason).toMatch(/config\.yaml:5:23: engines\.lcm\.fresh_tail_count/);
    const problems = await checkConfig(join(box.cwd, "config.yaml"), opts(box));
    expect(problems).toEqual([expect.objectContaining({ key: "engines.lcm.fresh_tail_count", line: 5, column: 23, severity: "error" })]);
  });

  it("suggests the intended key for a typo in engines.lcm", async () => {
    const file = box.write("project/config.yaml", "context:\n  engine: lcm\nengines:\n  lcm:\n    fresh_tail_cnt: 3\n");
    const problems = await checkConfig(file, opts(box));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ key: "engines.lcm.fresh_tail_cnt", line: 5, column: 5 });
    expect(problems[0]?.message).toContain('did you mean "fresh_tail_count"?');
  });

  it("names nested keys, mistyped values and typos in every engines.lcm section, selected or not", async () => {
    const file = box.write(
      "project/config.yaml",
      "context:\n  engine: compressor\nengines:\n  lcm:\n    redaction:\n      enabeld: false\n    cross_conversation: yes please\n",
    );
    const problems = await checkConfig(file, opts(box));
    expect(problems).toEqual([
      expect.objectContaining({ key: "engines.lcm.redaction.enabeld", line: 6, column: 7, severity: "error", message: 'unknown key "enabeld" (did you mean "enabled"?)' }),
      expect.objectContaining({ key: "engines.lcm.cross_conversation", line: 7, severity: "error", expected: expect.stringMatching(/boolean/) }),
    ]);
    expect(problems[0]!.expected).toMatch(/^one of enabled, disable, extra, allow/);
  });

  it("is listed as ok and active when selected", async () => {
    box.write("project/config.yaml", "context:\n  engine: lcm\n");
    const rows = await listEngines(opts(box));
    expect(rows.find((r) => r.name === "lcm")).toMatchObject({ source: "bundled", status: "ok", active: true, version: expect.any(String) });
    expect(rows.find((r) => r.name === "compressor")?.active).toBe(false);
  });
});
