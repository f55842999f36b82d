// The LCM plugin directory as OpenClaw loads it: manifest read first, then the
// module named in package.json#openclaw.extensions, then register(api). Runs on
// Node 20: better-sqlite3 here is built for this Node's ABI, not Node 24's.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configSchema, lcmToolSchemas } from "@context-engine/lcm";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { toOpenAiMessages } from "../src/index.js";
import type { OcAgentTool, OpenClawContextEngine } from "../src/index.js";
import { transcript } from "./fixtures.js";

const dir = new URL("../lcm-plugin/", import.meta.url);
const manifest = JSON.parse(readFileSync(new URL("openclaw.plugin.json", dir), "utf8"));
const pkg = JSON.parse(readFileSync(new URL("package.json", dir), "utf8"));
const agentDir = mkdtempSync(join(tmpdir(), "oc-lcm-"));
afterAll(() => rmSync(agentDir, { recursive: true, force: true }));

async function loadEngine(pluginConfig: Record<string, unknown> = {}): Promise<OpenClawContextEngine> {
  const entry = (await import(new URL("index.js", dir).href)).default;
  const registered = new Map<string, (ctx: object) => unknown>();
  entry.register({ id: manifest.id, pluginConfig, registerContextEngine: (id: string, f: (ctx: object) => unknown) => registered.set(id, f) });
  expect([...registered.keys()]).toEqual([manifest.id]);
  return (await registered.get(manifest.id)!({ agentDir })) as OpenClawContextEngine;
}

describe("lcm-plugin (OpenClaw plugin directory)", () => {
  it("has OpenClaw's manifest and package entry fields", () => {
    expect(manifest).toMatchObject({ id: "context-engine-lcm", kind: "context-engine" });
    expect(manifest.configSchema.type).toBe("object");
    expect(pkg.openclaw.extensions).toEqual(["./dist/index.js"]);
    expect(pkg.files).toContain("openclaw.plugin.json");
    expect(manifest.contracts.tools).toEqual(lcmToolSchemas().map((t) => t.name));
  });

  it("registers LCM's tools, answering from the session's engine", async () => {
    const entry = (await import(new URL("index.js", dir).href)).default;
    let toolFactory: ((ctx: object) => OcAgentTool[]) | undefined;
    const engines = new Map<string, (ctx: object) => unknown>();
    entry.register({
      id: manifest.id,
      pluginConfig: {},
      registerContextEngine: (id: string, f: (ctx: object) => unknown) => engines.set(id, f),
      registerTool: (f: (ctx: object) => OcAgentTool[], opts: { names: string[] }) => {
        toolFactory = f;
        expect(opts.names).toEqual(manifest.contracts.tools);
      },
    });
    const engine = (await engines.get(manifest.id)!({ agentDir })) as OpenClawContextEngine;
    const messages = transcript(3);
    await engine.commitTurn({ sessionId: "tools-1", advancementKey: "t0", messages });
    const tools = toolFactory!({ sessionId: "tools-1", agentDir });
    expect(tools.map((t) => t.name)).toEqual(manifest.contracts.tools);
    const grep = tools.find((t) => t.name === "lcm_grep")!;
    const result = await grep.execute("call-x", { query: "contents" });
    expect(result.content[0]!.type).toBe("text");
    expect(() => JSON.parse(result.content[0]!.text)).not.toThrow();
    expect(result.content[0]!.text).toContain("contents");
  });

  it("the built entry OpenClaw loads is self-contained: no @context-engine package to install", () => {
    const built = new URL(pkg.openclaw.extensions[0], dir);
    const files = readdirSync(new URL("dist/", dir)).filter((f) => f.endsWith(".js"));
    expect(files).toContain(built.pathname.split("/").at(-1));
    const imports = files.flatMap((f) => [...readFileSync(new URL(`dist/${f}`, dir), "utf8").matchAll(/from\s+"([^"./][^"]*)"|import\("([^"./][^"]*)"\)/g)].map((m) => m[1] ?? m[2]));
    const packages = [...new Set(imports.filter((i) => !i!.startsWith("node:")))].sort();
    // What the plugin's package.json declares, and nothing else.
    expect(packages).toEqual(["better-sqlite3", "pg", "re2js"]);
    expect(Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies }).sort()).toEqual(["better-sqlite3", "pg", "re2js"]);
  });

  it("manifest config schema is LCM's own schema (kept in sync; run pnpm sync-lcm-manifest)", () => {
    const generated = z.toJSONSchema(configSchema, { io: "input" }) as Record<string, unknown>;
    delete generated.$schema;
    expect(manifest.configSchema).toEqual(generated);
  });

  it("rejects invalid config through the entry's config schema", async () => {
    const entry = (await import(new URL("index.js", dir).href)).default;
    expect(entry.configSchema.safeParse({ context_threshold: 2 }).success).toBe(false);
    expect(entry.configSchema.safeParse({ fresh_tail_count: 8 }).success).toBe(true);
  });

  it("registers an engine that stores turns in SQLite and assembles a valid context", async () => {
    const engine = await loadEngine({ fresh_tail_count: 4 });
    expect(engine.info.transcriptSemantics?.turnAdvancementIdempotency).toBe("atomic-idempotent-v1");
    const messages = transcript(6);
    await engine.bootstrap({ sessionId: "lcm-1", sessionFile: "" });
    for (let i = 0; i < 6; i++) {
      const turn = messages.slice(i * 4, i * 4 + 4);
      expect((await engine.commitTurn({ sessionId: "lcm-1", advancementKey: `t${i}`, messages: turn })).status).toBe("committed");
    }
    const out = await engine.assemble({ sessionId: "lcm-1", messages, tokenBudget: 200_000 });
    expect(out.messages.length).toBeGreaterThan(0);
    const openai = toOpenAiMessages(out.messages).messages;
    expect(openai.filter((m) => m.role === "tool").length).toBe(openai.flatMap((m) => (m.role === "assistant" ? m.tool_calls ?? [] : [])).length);
    const compacted = await engine.compact({ sessionId: "lcm-1", sessionKey: "k", force: true });
    expect(compacted.ok).toBe(true);
    // The turns went to LCM's SQLite file under the agent's directory.
    expect(readdirSync(join(agentDir, "context-engine-lcm"))).toContain("lcm.sqlite");
    await engine.dispose();
  });
});
