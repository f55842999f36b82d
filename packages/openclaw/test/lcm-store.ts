// LCM under the adapter as the plugin directory loads it, with what a test needs to look into
// the store: the stored rows of a session, on SQLite or on a PostgreSQL schema of its own.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { LcmEngine } from "@context-engine/lcm";
import type { Message } from "@context-engine/core";
import type { OpenClawContextEngine } from "../src/index.js";

const dir = new URL("../lcm-plugin/", import.meta.url);
const manifest = JSON.parse(readFileSync(new URL("openclaw.plugin.json", dir), "utf8"));
const pkg = JSON.parse(readFileSync(new URL("package.json", dir), "utf8"));

export const POSTGRES_URL = process.env.LCM_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** OpenClaw's config with one loopback model of `window` tokens. */
export const openclawConfig = (window: number) => ({
  models: { providers: { loop: { api: "openai-completions", baseUrl: "http://127.0.0.1:1/v1", models: [{ id: "m", contextWindow: window, maxTokens: 1024 }] } } },
  agents: { defaults: { model: { primary: "loop/m" } } },
});

/** One OpenClaw process loading the plugin: a fresh registration, so no state is shared with another. */
export async function loadLcmPlugin(pluginConfig: Record<string, unknown>, agentDir: string, window = 24_000, logs: string[] = []): Promise<OpenClawContextEngine> {
  const entry = (await import(new URL("index.js", dir).href)).default;
  let factory: ((ctx: object) => unknown) | undefined;
  const log = (m: string) => logs.push(m);
  entry.register({ id: manifest.id, config: openclawConfig(window), pluginConfig, logger: { info: log, warn: log, error: log }, registerContextEngine: (_id: string, f: (ctx: object) => unknown) => (factory = f) });
  return (await factory!({ agentDir })) as OpenClawContextEngine;
}

/** The rows stored for a session (its conversation), read through a separate engine on the same store. */
export async function storedRows(pluginConfig: Record<string, unknown>, dataDir: string, sessionId: string): Promise<Message[]> {
  const engine = new LcmEngine({ config: pluginConfig, dataDir });
  try {
    const store = await engine.openStore();
    const conv = await store.findConversation(sessionId);
    if (!conv) return [];
    const rows = await store.getMessages(conv.id);
    return rows.map((r) => r.message);
  } finally {
    await engine.close();
  }
}

/** The session ids with a stored conversation. */
export async function storedSessions(pluginConfig: Record<string, unknown>, dataDir: string): Promise<string[]> {
  const engine = new LcmEngine({ config: pluginConfig, dataDir });
  try {
    const store = await engine.openStore();
    return (await store.listConversations()).map((c) => c.sessionId);
  } finally {
    await engine.close();
  }
}

type PgClient = { connect(): Promise<void>; query(sql: string): Promise<unknown>; end(): Promise<void> };
type PgModule = { Client: new (o: { connectionString: string; connectionTimeoutMillis?: number }) => PgClient };

/** `pg` as LCM resolves it (LCM's optional peer; this package does not depend on it). */
function pgModule(): PgModule {
  const lcm = createRequire(import.meta.url).resolve("@context-engine/lcm");
  return createRequire(lcm)("pg") as PgModule;
}

async function pgQuery(sql: string): Promise<void> {
  const client = new (pgModule().Client)({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end().catch(() => {});
  }
}

export async function postgresReachable(): Promise<boolean> {
  try {
    await pgQuery("SELECT 1");
    return true;
  } catch (error) {
    console.warn(`[openclaw] PostgreSQL tests SKIPPED: no server at ${POSTGRES_URL} (${error instanceof Error ? error.message : String(error)})`);
    return false;
  }
}

export function uniqueSchema(): string {
  return `oc_test_${randomBytes(6).toString("hex")}`;
}

export async function dropSchema(schema: string): Promise<void> {
  await pgQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
}
