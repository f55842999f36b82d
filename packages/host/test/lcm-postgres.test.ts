import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { ContextEngine } from "@context-engine/core";
import { ContextEngineConfigSchema, loadEngine } from "@context-engine/plugin-loader";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FakeOpenAIServer } from "./support/fake-openai-server.js";
import { deployKeyHistory as history, makeHost, startServer } from "./support/setup.js";

// The LCM engine on PostgreSQL through the real loader, host and a loopback OpenAI server.
const POSTGRES_URL = process.env.LCM_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const bundledDir = resolve(dirname(fileURLToPath(import.meta.url)), "../../../plugins/context_engine");
const home = mkdtempSync(join(tmpdir(), "ce-host-lcm-pg-"));
const schema = `lcm_host_${process.pid}_${Date.now().toString(36)}`;

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2000 });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => {});
  }
}

const reachable = await admin(async () => true).catch((error: unknown) => {
  console.warn(`[host tests] LCM on PostgreSQL SKIPPED: no server at ${POSTGRES_URL} (${error instanceof Error ? error.message : String(error)})`);
  return false;
});

function load(store: string, extra: Record<string, unknown> = {}) {
  const config = ContextEngineConfigSchema.parse({ context: { engine: "lcm" }, engines: { lcm: { store, schema, ...extra } } });
  return loadEngine(config, { contextLength: 16_000, model: "test-model" }, { cwd: home, home, bundledDir, nodeModules: false, env: {} });
}

let server: FakeOpenAIServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.stop();
  if (reachable) await admin((c) => c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
  rmSync(home, { recursive: true, force: true });
});

describe.skipIf(!reachable)("the LCM engine on PostgreSQL through the host", () => {
  it("is selected by engines.lcm.store, stores every turn, answers its tools and compacts", async () => {
    const loaded = await load(POSTGRES_URL);
    expect(loaded.name).toBe("lcm");
    expect(loaded.fallbackReason).toBeNull();
    const engine: ContextEngine = loaded.engine;
    try {
      server.reset().script([
        { toolCalls: [{ id: "g1", name: "lcm_grep", arguments: { query: "service-3" } }] },
        { content: "service-3 rotates every 5 days." },
        { content: "ok" },
      ]);
      const { host, ofType } = makeHost(server, { engine });
      const session = await host.openSession({ sessionId: "pg-host", model: "test-model", contextLength: 16_000, history: history(), platform: "test" });
      expect(session.engineTools).toEqual(expect.arrayContaining(["lcm_grep"]));
      const first = await session.send("How often does service-3 rotate its key?");
      expect(first.status).toBe("completed");
      const toolResult = session.messages.find((m) => m.role === "tool")!.content as string;
      expect(toolResult).toContain("service-3");
      const compaction = await session.compress("deploy keys");
      expect(["committed", "unchanged", "nothing_to_compress"]).toContain(compaction.status);
      expect((await session.send("thanks")).status).toBe("completed");
      await session.end();
      expect(ofType("hook.failed")).toEqual([]);
      expect(ofType("compaction.failed")).toEqual([]);
      // Every message of the session is in PostgreSQL, once and in order.
      const rows = await admin((c) =>
        c.query<{ seq: number; role: string; body: string }>(
          `SELECT m.seq, m.role, m.body FROM ${schema}.messages m JOIN ${schema}.conversations c ON c.id = m.conversation_id WHERE c.session_id = 'pg-host' ORDER BY m.seq`,
        ),
      );
      expect(rows.rows.map((r) => r.seq)).toEqual(rows.rows.map((_, i) => i));
      const bodies = rows.rows.map((r) => r.body);
      expect(bodies.filter((b) => b.includes("How often does service-3 rotate its key?"))).toHaveLength(1);
      expect(bodies.some((b) => b.includes("thanks"))).toBe(true);
      const status = engine.getStatus() as unknown as { lcm: { store: { kind: string; location: string } } };
      expect(status.lcm.store.kind).toBe("postgres");
    } finally {
      await (engine as { close?: () => Promise<void> }).close?.();
    }
  });

  it("an unreachable server is reported once, in plain words, and the built-in compressor stands in (no password shown)", async () => {
    const loaded = await load("postgres://someone:s3cr3t-pw@127.0.0.1:1/nowhere", { connect_timeout_ms: 2_000 });
    expect(loaded.name).toBe("compressor");
    expect(loaded.fallbackReason).toMatch(/cannot start/);
    expect(loaded.fallbackReason).toMatch(/cannot be reached|refused|ECONNREFUSED/i);
    expect(loaded.fallbackReason).not.toContain("s3cr3t-pw");
  });
});
