import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listEngines, parseConfigText } from "../src/index.js";
import type { ContextEngineConfig, EngineListing } from "../src/index.js";
import { CORE_URL, engineSource, isolated, manifest, sandbox, writePlugin } from "./helpers.js";
import type { Sandbox } from "./helpers.js";

function config(yaml: string): ContextEngineConfig {
  const parsed = parseConfigText(yaml, "config.yaml");
  if (!parsed.config) throw new Error(parsed.problems.map((p) => p.message).join("; "));
  return parsed.config;
}

const row = (rows: EngineListing[], name: string, source?: string) => rows.find((r) => r.name === name && (!source || r.source === source));

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

describe("listEngines", () => {
  it("lists every source with version, description, status and the active engine", async () => {
    writePlugin(box, "bundled", "alpha", engineSource("alpha"));
    writePlugin(box, "user", "beta", engineSource("beta"), manifest("beta").replace("1.2.3", "0.9.0"));
    writePlugin(box, "user", "alpha", engineSource("alpha"));
    box.write("project/reg.js", `import { ContextEngine } from ${JSON.stringify(CORE_URL)};
class R extends ContextEngine { get name() { return "gamma"; } updateFromResponse() {} shouldCompress() { return false; } compress(m) { return m; } }
export function register(ctx) { ctx.registerContextEngine(new R()); }`);
    const cfg = config("context:\n  engine: beta\nplugins:\n  modules: [reg.js]\n");
    const rows = await listEngines({ ...isolated(box), config: { config: cfg, file: null, baseDir: box.cwd, source: null, warnings: [] }, probe: "import" });
    expect(row(rows, "compressor")).toMatchObject({ source: "builtin", active: false, path: null });
    expect(row(rows, "alpha", "bundled")).toMatchObject({ version: "1.2.3", description: "The alpha test engine", status: "ok", active: false });
    expect(row(rows, "alpha", "user")?.status).toMatch(/shadowed by the bundled engine/);
    expect(row(rows, "beta")).toMatchObject({ source: "user", version: "0.9.0", status: "ok", active: true });
    expect(row(rows, "gamma")).toMatchObject({ source: "registered", status: "ok", active: false, description: 'registered by plugin "reg"' });
    expect(rows.filter((r) => r.active)).toHaveLength(1);
  });

  it("lists each kind of broken plugin with its reason and never throws", async () => {
    writePlugin(box, "bundled", "badyaml", engineSource("badyaml"), "name: [\n");
    writePlugin(box, "bundled", "throws", "throw new Error('import boom');");
    writePlugin(box, "bundled", "noexport", "export const x = 1;");
    writePlugin(box, "bundled", "mismatch", engineSource("other"));
    writePlugin(box, "bundled", "ctorfail", engineSource("ctorfail").replace("super();", "super(); throw new Error('ctor boom');"));
    writePlugin(box, "bundled", "unavailable", engineSource("unavailable", { className: "U", extra: "U.prototype.isAvailable = () => false;" }));
    writePlugin(box, "bundled", "ok", engineSource("ok"));
    const rows = await listEngines({ ...isolated(box), config: config("context:\n  engine: throws\n") });
    expect(row(rows, "badyaml")?.status).toMatch(/^invalid plugin\.yaml: .*plugin\.yaml:2:1/);
    expect(row(rows, "throws")?.status).toMatch(/failed: import boom/);
    expect(row(rows, "throws")?.active).toBe(true);
    expect(row(rows, "noexport")?.status).toMatch(/exports no ContextEngine subclass/);
    expect(row(rows, "mismatch")?.status).toMatch(/reports name "other"/);
    expect(row(rows, "ctorfail")?.status).toMatch(/constructor threw: ctor boom/);
    expect(row(rows, "unavailable")?.status).toBe("unavailable: isAvailable() returned false");
    expect(row(rows, "ok")?.status).toBe("ok");
    expect(row(rows, "compressor")?.active).toBe(false);
  });

  it("probe 'none' imports nothing", async () => {
    const marker = join(box.root, "imported");
    writePlugin(box, "bundled", "side", `import { writeFileSync } from "node:fs"; writeFileSync(${JSON.stringify(marker)}, "x");`);
    const rows = await listEngines({ ...isolated(box), config: config(""), probe: "none" });
    expect(row(rows, "side")?.status).toBe("ok");
    expect(existsSync(marker)).toBe(false);
  });

  it("reads config.yaml itself when no config is given", async () => {
    writePlugin(box, "bundled", "alpha", engineSource("alpha"));
    box.write("project/config.yaml", "context:\n  engine: alpha\n");
    const rows = await listEngines({ ...isolated(box), probe: "none" });
    expect(row(rows, "alpha")?.active).toBe(true);
  });

  it("a plugin named like the built-in engine is refused", async () => {
    writePlugin(box, "bundled", "compressor", engineSource("compressor"));
    const rows = await listEngines({ ...isolated(box), config: config(""), probe: "none" });
    expect(row(rows, "compressor", "bundled")?.status).toMatch(/reserved for the built-in engine/);
    expect(row(rows, "compressor", "bundled")?.active).toBe(false);
  });
});
