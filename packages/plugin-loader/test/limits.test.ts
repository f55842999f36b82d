import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkConfig, loadEngine, parseConfigText } from "../src/index.js";
import { engineSource, isolated, manifest, sandbox, writePlugin } from "./helpers.js";
import type { Sandbox } from "./helpers.js";

let box: Sandbox;
const parsed = (yaml: string) => parseConfigText(yaml, "config.yaml").config!;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

// A schema without zod: anything with safeParse will do.
const STATIC_SCHEMA = `
  static configSchema = {
    safeParse(v) {
      if (v && typeof v === "object" && (v.fresh_tail_count === undefined || typeof v.fresh_tail_count === "number")) return { success: true, data: v };
      return { success: false, error: { issues: [{ code: "custom", path: ["fresh_tail_count"], message: "expected a number" }] } };
    },
  };`;

function engineWithStaticSchema(name: string): string {
  return engineSource(name).replace("  get name()", `${STATIC_SCHEMA}\n  get name()`);
}

describe("size and depth limits", () => {
  it("refuses a config.yaml over 1 MiB with a clear message, without parsing it", () => {
    const text = `context:\n  engine: compressor\n# ${"x".repeat(1024 * 1024)}\n`;
    const { config, problems } = parseConfigText(text, "config.yaml");
    expect(config).toBeNull();
    expect(problems[0]!.message).toMatch(/config\.yaml is 1\.0 MiB; the limit is 1\.0 MiB/);
  });

  it("says content is nested too deep instead of overflowing the stack", () => {
    const depth = 10_000;
    for (const text of [`engines:\n  x: ${"[".repeat(depth)}${"]".repeat(depth)}\n`, `engines:\n  x: ${"{a: ".repeat(depth)}1${"}".repeat(depth)}\n`]) {
      const { config, problems } = parseConfigText(text, "config.yaml");
      expect(config).toBeNull();
      const messages = problems.map((p) => p.message).join("\n");
      expect(messages).toMatch(/nested/);
      expect(messages).not.toMatch(/call stack/);
    }
  });

  it("refuses a plugin.yaml over 64 KiB", async () => {
    writePlugin(box, "user", "bigyaml", engineSource("bigyaml"), manifest("bigyaml", `notes: "${"n".repeat(70 * 1024)}"\n`));
    await expect(loadEngine(parsed("context:\n  engine: bigyaml\n"), {}, isolated(box))).rejects.toThrow(/plugin\.yaml is 70\.\d KiB; the limit is 64\.0 KiB/);
  });
});

describe("a static configSchema on the engine class", () => {
  it("fails config check on a bad engines.<name> value, with file and key", async () => {
    writePlugin(box, "user", "schemed", engineWithStaticSchema("schemed"));
    const file = box.write("config.yaml", "context:\n  engine: schemed\nengines:\n  schemed:\n    fresh_tail_count: lots\n");
    const problems = await checkConfig(file, isolated(box));
    const errors = problems.filter((p) => p.severity === "error");
    expect(errors).toHaveLength(1);
    expect(errors[0]!.key).toMatch(/engines\.schemed\.fresh_tail_count/);
    expect(errors[0]!.message).toMatch(/expected a number/);
    const good = box.write("good.yaml", "context:\n  engine: schemed\nengines:\n  schemed:\n    fresh_tail_count: 4\n");
    expect((await checkConfig(good, isolated(box))).filter((p) => p.severity === "error")).toEqual([]);
  });

  it("is run by loadEngine too", async () => {
    writePlugin(box, "user", "schemed", engineWithStaticSchema("schemed"));
    await expect(loadEngine(parsed("context:\n  engine: schemed\nengines:\n  schemed: { fresh_tail_count: lots }\n"), {}, isolated(box))).rejects.toThrow(/invalid config/);
  });
});

describe("createEngine", () => {
  it("builds one fresh instance of a directory engine per call, with the session's fields on the loader's context", async () => {
    writePlugin(box, "user", "persession", engineSource("persession"));
    const loaded = await loadEngine(parsed("context:\n  engine: persession\nengines:\n  persession: { a: 1 }\n"), { contextLength: 1000 }, isolated(box));
    expect(loaded.createEngine).not.toBeNull();
    const one = loaded.createEngine!({ contextLength: 8000, model: "small" }) as unknown as { initContext: Record<string, unknown> };
    const two = loaded.createEngine!({}) as unknown as { initContext: Record<string, unknown> };
    expect(one).not.toBe(two);
    expect(one).not.toBe(loaded.engine);
    expect(one.initContext).toMatchObject({ contextLength: 8000, model: "small", config: { a: 1 } });
    expect(two.initContext).toMatchObject({ contextLength: 1000, config: { a: 1 } });
  });
});
