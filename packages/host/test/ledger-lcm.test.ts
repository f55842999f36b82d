import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { ContextEngine, Message } from "@context-engine/core";
import { ContextEngineConfigSchema, loadEngine } from "@context-engine/plugin-loader";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalLedgerMessage, isPinsBlock, messageDigest } from "../src/index.js";
import type { FakeOpenAIServer } from "./support/fake-openai-server.js";
import { deployKeyHistory, makeHost, startServer } from "./support/setup.js";

// The ledger with the lossless engine (LCM on SQLite) through the real loader, host and a loopback server.
const bundledDir = resolve(dirname(fileURLToPath(import.meta.url)), "../../../plugins/context_engine");
const home = mkdtempSync(join(tmpdir(), "ce-ledger-lcm-"));

async function loadLcm(): Promise<ContextEngine | null> {
  try {
    const config = ContextEngineConfigSchema.parse({ context: { engine: "lcm" }, engines: { lcm: { fresh_tail_count: 4 } } });
    const loaded = await loadEngine(config, { contextLength: 16_000, model: "test-model" }, { cwd: home, home, bundledDir, nodeModules: false, env: {} });
    if (loaded.name !== "lcm") throw new Error(`got ${loaded.name}: ${loaded.fallbackReason ?? "no reason"}`);
    return loaded.engine;
  } catch (error) {
    console.warn(`[host tests] skipping the LCM ledger tests: the plugin could not be loaded (${error instanceof Error ? error.message : String(error)}); build plugins/context_engine/lcm first`);
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

const sorted = (messages: readonly Message[]) => messages.map(canonicalLedgerMessage).sort();
function multisetMinus(a: readonly Message[], b: readonly Message[]): Message[] {
  const pool = b.map(canonicalLedgerMessage);
  return a.filter((m) => {
    const at = pool.indexOf(canonicalLedgerMessage(m));
    if (at < 0) return true;
    pool.splice(at, 1);
    return false;
  });
}

describe("the compaction ledger with LCM", () => {
  it("restore of a summary id expands it in place through lcm_expand: the same messages the ledger recorded as removed", async (ctx) => {
    if (!engine) return ctx.skip();
    server.reset().script(() => ({ content: "ok" }));
    const { host } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 16_000, systemPrompt: "sys", history: deployKeyHistory(), dataDir: join(home, "data2") });
    expect((await session.compress()).status).toBe("committed");
    const entry = session.compactions()[0]!;
    const summary = entry.inserted.map((p) => p.message).find((m) => /<summary\s[^>]*id="(sum_[^"]+)"/.test(String(m.content)))!;
    const id = /<summary\s[^>]*id="(sum_[^"]+)"/.exec(String(summary.content))![1]!;
    const before = session.messages.slice();
    const result = await session.restore(id);
    expect(result.status).toBe("restored");
    if (result.status !== "restored") return;
    expect(result.entry.compactions).toEqual([id]);
    expect(sorted(multisetMinus(session.messages, before))).toEqual(sorted(entry.removed.map((r) => r.message)));
    expect((await session.send("and now?")).status).toBe("completed");
  });

  it("records several LCM compactions as sent, keeps pins through them, and undo/restore give back exactly what left", async (ctx) => {
    if (!engine) return ctx.skip();
    server.reset().script(() => ({ content: "ok" }));
    const { host, ofType } = makeHost(server, { engine });
    const session = await host.openSession({ model: "test-model", contextLength: 16_000, systemPrompt: "sys", history: deployKeyHistory(), dataDir: join(home, "data"), ledgerDir: join(home, "ledger") });
    expect((await session.pin("Service names are lowercase.")).status).toBe("pinned");
    for (let i = 0; i < 3; i++) {
      await session.send(`Note ${20 + i}: ${"more detail about the rotation policy ".repeat(12)}`);
      const answered = session.messages.slice();
      const result = await session.compress();
      expect(result.status).toBe("committed");
      const entry = session.compactions().at(-1)!;
      expect(entry.engine).toBe("lcm");
      expect(entry.before).toEqual(answered.map(messageDigest));
      await session.send(`after pass ${i}`);
      const sent = server.requests.at(-1)!.body.messages as Message[];
      expect(entry.after).toEqual(sent.slice(0, -1).map(messageDigest));
      expect(sent.filter(isPinsBlock)).toHaveLength(1);
      expect(sent[1]!.content).toContain("Service names are lowercase.");
    }
    expect(session.compactions()).toHaveLength(3);
    expect(ofType("compaction.failed")).toEqual([]);

    const beforeUndo = session.messages.slice();
    expect((await session.undo()).status).toBe("restored");
    const last = session.compactions().at(-1)!;
    expect(sorted(multisetMinus(session.messages, beforeUndo))).toEqual(sorted(last.removed.map((r) => r.message)));
    const first = session.compactions()[0]!;
    const restored = await session.restore(first.id);
    expect(restored.status).toBe("restored");
    const live = new Set(session.messages.map(canonicalLedgerMessage));
    for (const r of first.removed) if (!isPinsBlock(r.message)) expect(live.has(canonicalLedgerMessage(r.message))).toBe(true);
    const reply = await session.send("thanks");
    expect(reply.status).toBe("completed");
    // What the user put back reaches the model: the next request carries every restored message.
    const next = new Set((server.requests.at(-1)!.body.messages as Message[]).map(canonicalLedgerMessage));
    for (const r of first.removed) if (!isPinsBlock(r.message)) expect(next.has(canonicalLedgerMessage(r.message))).toBe(true);
    expect(ofType("hook.failed")).toEqual([]);
  });
});
