import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { ContextEngine } from "@context-engine/core";
import { loadEngine } from "@context-engine/plugin-loader";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FakeOpenAIServer } from "./support/fake-openai-server.js";
import { deployKeyHistory as history, makeHost, startServer } from "./support/setup.js";

const bundledDir = resolve(dirname(fileURLToPath(import.meta.url)), "../../../plugins/context_engine");
const home = mkdtempSync(join(tmpdir(), "ce-host-lcm-"));

/** The LCM plugin through the real loader, or null (with a visible notice) when it cannot load here. */
async function loadLcm(): Promise<ContextEngine | null> {
  try {
    const loaded = await loadEngine(undefined, { contextLength: 16_000, model: "test-model" }, { engine: "lcm", cwd: home, home, bundledDir, nodeModules: false, env: {} });
    if (loaded.name !== "lcm") throw new Error(`got ${loaded.name}: ${loaded.fallbackReason ?? "no reason"}`);
    return loaded.engine;
  } catch (error) {
    console.warn(`[host tests] skipping the LCM plugin tests: the plugin could not be loaded (${error instanceof Error ? error.message : String(error)}); build plugins/context_engine/lcm first`);
    return null;
  }
}

let server: FakeOpenAIServer;
let engine: ContextEngine | null;
beforeAll(async () => {
  server = await startServer();
  engine = await loadLcm();
});
afterAll(async () => {
  await server.stop();
  await (engine as { close?: () => unknown } | null)?.close?.();
  rmSync(home, { recursive: true, force: true });
});

describe("driving a plugin engine loaded by the plugin loader (LCM)", () => {
  it("injects its tools, dispatches them, compacts and ends cleanly", async (ctx) => {
    if (!engine) return ctx.skip();
    server.reset().script([
      { toolCalls: [{ id: "g1", name: "lcm_grep", arguments: { query: "service-3" } }] },
      { content: "service-3 rotates every 5 days." },
      { content: "ok" },
    ]);
    const { host, ofType } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 16_000, history: history(), dataDir: join(home, "data"), platform: "test" });
    expect(session.engineTools).toEqual(expect.arrayContaining(["lcm_grep"]));
    const first = await session.send("How often does service-3 rotate its key?");
    expect(first.status).toBe("completed");
    const call = ofType("engine_tool.called")[0]!;
    expect(call.name).toBe("lcm_grep");
    const toolResult = session.messages.find((m) => m.role === "tool")!.content as string;
    expect(() => JSON.parse(toolResult)).not.toThrow();
    const compaction = await session.compress("deploy keys");
    expect(["committed", "unchanged", "nothing_to_compress"]).toContain(compaction.status);
    const second = await session.send("thanks");
    expect(second.status).toBe("completed");
    await session.end();
    expect(ofType("hook.failed")).toEqual([]);
    expect(ofType("compaction.failed")).toEqual([]);
  });
});
