import type { Logger, Message } from "@context-engine/core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { exportConversation, importConversation, LcmEngine } from "../src/index.js";
import { parseConfig } from "../src/config.js";
import { EmbeddingClient } from "../src/embeddings/client.js";
import { EmbeddingsConfigSchema } from "../src/embeddings/config.js";
import { vectorIndexOf } from "../src/embeddings/index-of.js";
import { agentConversation, tempDir } from "./engine-helpers.js";
import { startToyServer, type ToyServer } from "./embeddings/toy-embedder.js";
import { dropSchema, POSTGRES_URL, postgresReachable, randomSchema } from "./postgres/server.js";

const T0 = Date.parse("2026-03-01T10:00:00Z");

/** A conversation where "what did she adopt?" shares no word with its answer. */
function conversation(): Message[] {
  const lines = [
    "Melanie said the weather in Boston was cold this week.",
    "We brought home a puppy last Saturday, a small brown one named Oscar.",
    "My brother fixed the kitchen sink with a new washer.",
    "The quarterly report is due on Friday at noon.",
    "I started reading a novel about sailors in the Arctic.",
    "Lunch was a sandwich with tomato and cheese.",
  ];
  return lines.map((content, i) => ({ role: i % 2 ? "assistant" : "user", content }) as Message);
}

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const noop = () => {};
  return { warnings, debug: noop, info: noop, error: noop, warn: (msg: string) => void warnings.push(msg) } as Logger & { warnings: string[] };
}

type StoreKind = "sqlite" | "postgres";
const pgUp = await postgresReachable();

async function engineOn(kind: StoreKind, embeddings: Record<string, unknown> | undefined, opts: { dir?: string; schema?: string; logger?: Logger } = {}) {
  const t = opts.dir ? { dir: opts.dir, cleanup: () => {} } : tempDir();
  const schema = opts.schema ?? randomSchema();
  const storeConfig = kind === "sqlite" ? {} : { store: POSTGRES_URL, schema, pool_size: 2 };
  const engine = new LcmEngine({ dataDir: t.dir, contextLength: 100_000, config: { ...storeConfig, ...(embeddings ? { embeddings } : {}) }, ...(opts.logger ? { logger: opts.logger } : {}) });
  return {
    engine,
    dir: t.dir,
    schema,
    cleanup: async () => {
      await engine.close();
      t.cleanup();
      if (kind === "postgres") await dropSchema(schema);
    },
  };
}

async function grep(engine: LcmEngine, args: Record<string, unknown>) {
  return JSON.parse(await engine.handleToolCall("lcm_grep", args, { sessionId: "s" })) as {
    mode: string;
    hits: Array<{ ref: string; snippet: string; type: string }>;
    notes?: string[];
    error?: string;
  };
}

async function vectorRows(engine: LcmEngine, model: string): Promise<number> {
  const index = await vectorIndexOf(await engine.openStore());
  return index.count(model);
}

describe("embeddings config", () => {
  it("is off by default and names the field of a bad value", () => {
    expect(parseConfig({}).embeddings).toBeUndefined();
    expect(() => parseConfig({ embeddings: { base_url: "ftp://x", model: "m" } })).toThrow(/engines\.lcm\.embeddings\.base_url/);
    expect(() => parseConfig({ embeddings: { base_url: "http://127.0.0.1:1/v1" } })).toThrow(/engines\.lcm\.embeddings\.model/);
    expect(() => parseConfig({ embeddings: { base_url: "http://127.0.0.1:1/v1", model: "m", api_key_env: "not a name" } })).toThrow(/embeddings\.api_key_env/);
    expect(() => parseConfig({ embeddings: { base_url: "http://127.0.0.1:1/v1", model: "m", dimensions: 0 } })).toThrow(/embeddings\.dimensions/);
  });
});

describe("embedding client against a loopback server", () => {
  let server: ToyServer;
  beforeAll(async () => {
    server = await startToyServer();
  });
  afterAll(async () => server.close());
  afterEach(() => {
    server.requests.length = 0;
    server.failNext(0);
  });

  it("sends the model, the key from the environment and asked dimensions; answers one vector per text in order", async () => {
    const client = new EmbeddingClient(EmbeddingsConfigSchema.parse({ base_url: server.baseUrl, model: "toy-1", dimensions: 16, api_key_env: "TOY_KEY" }), { TOY_KEY: "sekrit" });
    const out = await client.embed(["a puppy", "a car"], { timeoutMs: 2000, retries: 0 });
    expect(out.map((v) => v.length)).toEqual([16, 16]);
    expect(server.requests[0]).toMatchObject({ model: "toy-1", input: ["a puppy", "a car"], auth: "Bearer sekrit" });
  });

  it("retries server errors, not authentication errors", async () => {
    const client = new EmbeddingClient(EmbeddingsConfigSchema.parse({ base_url: server.baseUrl, model: "toy-1" }), {});
    server.failNext(1, 503);
    await expect(client.embed(["x"], { timeoutMs: 2000, retries: 2 })).resolves.toHaveLength(1);
    expect(server.requests).toHaveLength(2);
    server.requests.length = 0;
    server.failNext(5, 401);
    await expect(client.embed(["x"], { timeoutMs: 2000, retries: 2 })).rejects.toMatchObject({ kind: "auth" });
    expect(server.requests).toHaveLength(1);
  });

  it("refuses an answer of the wrong size", async () => {
    const client = new EmbeddingClient(EmbeddingsConfigSchema.parse({ base_url: server.baseUrl, model: "toy-1", dimensions: 8 }), {});
    const wrong = await startToyServer(8);
    try {
      // The toy server honours `dimensions`; a client expecting 8 that gets 32 (no dimensions sent) must refuse.
      const strict = new EmbeddingClient(EmbeddingsConfigSchema.parse({ base_url: wrong.baseUrl, model: "toy-1" }), {});
      expect((await strict.embed(["x"], { timeoutMs: 2000, retries: 0 }))[0]).toHaveLength(8);
      await expect(client.embed(["x"], { timeoutMs: 2000, retries: 0 })).resolves.toHaveLength(1);
    } finally {
      await wrong.close();
    }
  });
});

describe.each(["sqlite", "postgres"] as const)("hybrid retrieval on %s", (kind) => {
  let server: ToyServer;
  beforeAll(async () => {
    server = await startToyServer();
  });
  afterAll(async () => server.close());
  afterEach(() => server.failNext(0));
  const run = kind === "postgres" && !pgUp ? it.skip : it;

  run("finds by meaning what words miss, in one fused list; semantic mode ranks by vectors alone", async () => {
    const cfg = { base_url: server.baseUrl, model: "toy-1", batch_size: 4 };
    const e = await engineOn(kind, cfg);
    try {
      await e.engine.onTurnComplete(conversation(), null, { sessionId: "s", messageTimes: conversation().map((_, i) => T0 + i * 60_000) });
      await e.engine.whenIdle("s");
      expect(await vectorRows(e.engine, "toy-1")).toBe(6);
      // Batched: 6 messages at 4 per request.
      expect(server.requests.filter((r) => r.input.length > 1).length).toBeGreaterThanOrEqual(1);
      const hybrid = await grep(e.engine, { query: "what did Melanie adopt" });
      expect(hybrid.mode).toBe("hybrid");
      const refs = hybrid.hits.map((h) => h.snippet);
      expect(refs.some((s) => s.includes("puppy"))).toBe(true);
      expect(refs.some((s) => s.includes("Melanie"))).toBe(true);
      // Nothing the word index can search for (it refuses such a query): the vectors still answer, with a note.
      const noWords = await grep(e.engine, { query: "?! …" });
      expect(noWords.error, JSON.stringify(noWords)).toBeUndefined();
      expect(noWords.notes?.join(" ")).toMatch(/ranked by meaning alone/);
      const semantic = await grep(e.engine, { query: "adopt", mode: "semantic" });
      expect(semantic.mode).toBe("semantic");
      expect(semantic.hits[0]!.snippet).toContain("puppy");
      const status = e.engine.getStatus().lcm as { retrieval: { retrieval: string; model: string; vectors: string; vectorsNotice?: string } };
      expect(status.retrieval).toMatchObject({ retrieval: "hybrid", model: "toy-1" });
      expect(status.retrieval.vectors).toMatch(kind === "sqlite" ? /sqlite-vec|exact scan/ : /exact scan \(PostgreSQL|pgvector/);
      // PostgreSQL without pgvector: the fallback to the exact scan is said, not silent.
      if (status.retrieval.vectors === "exact scan (PostgreSQL bytea)") expect(status.retrieval.vectorsNotice).toMatch(/pgvector .* not installed/);
      expect(e.engine.describe().retrieval).toMatch(/hybrid/);
      expect(e.engine.getStatus().retrieval).toBe("hybrid (words + toy-1 vectors)");
      expect(e.engine.getToolSchemas()[0]!.parameters).toMatchObject({ properties: { mode: { enum: ["full_text", "regex", "semantic"] } } });
    } finally {
      await e.cleanup();
    }
  });

  run("the strong word hits head the fused list as they head the word ranking", async () => {
    const hybrid = await engineOn(kind, { base_url: server.baseUrl, model: "toy-1", batch_size: 4 });
    const words = await engineOn(kind, undefined);
    try {
      for (const e of [hybrid, words]) await e.engine.onTurnComplete(conversation(), null, { sessionId: "s" });
      await hybrid.engine.whenIdle("s");
      for (const query of ["quarterly report Friday", "brother kitchen sink", "sailors Arctic novel", "tomato cheese"]) {
        const fused = await grep(hybrid.engine, { query });
        const plain = await grep(words.engine, { query });
        expect(fused.mode).toBe("hybrid");
        expect(plain.mode).toBe("full_text");
        expect(fused.hits[0]!.ref, query).toBe(plain.hits[0]!.ref);
      }
    } finally {
      await hybrid.cleanup();
      await words.cleanup();
    }
  });

  run("without a provider: words only, said so; the semantic mode is not offered", async () => {
    const e = await engineOn(kind, undefined);
    try {
      await e.engine.onTurnComplete(conversation(), null, { sessionId: "s" });
      const res = await grep(e.engine, { query: "what did Melanie adopt" });
      expect(res.mode).toBe("full_text");
      expect(res.hits.some((h) => h.snippet.includes("puppy"))).toBe(false);
      expect(e.engine.describe().retrieval).toMatch(/^words/);
      expect(e.engine.getStatus().retrieval).toBe("words (BM25)");
      expect((e.engine.getStatus().lcm as { retrieval: unknown }).retrieval).toEqual({ retrieval: "words" });
      expect(e.engine.getToolSchemas()[0]!.parameters).toMatchObject({ properties: { mode: { enum: ["full_text", "regex"] } } });
      const semantic = await grep(e.engine, { query: "Melanie", mode: "semantic" });
      expect(semantic.notes?.join(" ")).toMatch(/needs an embedding provider/);
    } finally {
      await e.cleanup();
    }
  });

  run("a failing provider degrades to words, reported once, and the tool call succeeds", async () => {
    const logger = recordingLogger();
    const e = await engineOn(kind, { base_url: server.baseUrl, model: "toy-1", query_timeout_ms: 500 }, { logger });
    try {
      server.failNext(Infinity, 500);
      await e.engine.onTurnComplete(conversation(), null, { sessionId: "s" });
      await e.engine.whenIdle("s");
      const first = await grep(e.engine, { query: "Melanie weather" });
      const second = await grep(e.engine, { query: "kitchen sink" });
      expect(first.error).toBeUndefined();
      expect(first.mode).toBe("full_text");
      expect(first.hits[0]!.snippet).toContain("Melanie");
      expect(first.notes?.join(" ")).toMatch(/ranked by words alone/);
      expect(second.hits[0]!.snippet).toContain("sink");
      expect(logger.warnings.filter((w) => w.includes("embedding failed"))).toHaveLength(1);
      expect((e.engine.getStatus().lcm as { retrieval: { degraded: unknown } }).retrieval.degraded).not.toBeNull();
      expect(await vectorRows(e.engine, "toy-1")).toBe(0);
    } finally {
      await e.cleanup();
    }
  });

  run("a slow provider times out on the search path: words answer", async () => {
    const e = await engineOn(kind, { base_url: server.baseUrl, model: "toy-1", query_timeout_ms: 100, timeout_ms: 100 });
    try {
      server.delayMs = 1_000;
      await e.engine.onTurnComplete(conversation(), null, { sessionId: "s" });
      const res = await grep(e.engine, { query: "quarterly report" });
      expect(res.hits[0]!.snippet).toContain("quarterly");
      expect(res.notes?.join(" ")).toMatch(/ranked by words alone/);
    } finally {
      server.delayMs = 0;
      await e.cleanup();
    }
  });

  run("summaries are embedded too and found by meaning, in the same list as messages", async () => {
    const e = await engineOn(kind, { base_url: server.baseUrl, model: "toy-1" });
    try {
      const history = agentConversation(40, 3);
      await e.engine.compress(history, { sessionId: "s", force: true });
      await e.engine.onSessionStart("s");
      await e.engine.whenIdle("s");
      const store = await e.engine.openStore();
      const summaries = await store.listSummaries((await store.findConversation("s"))!.id);
      expect(summaries.length).toBeGreaterThan(0);
      const res = await grep(e.engine, { query: summaries[0]!.content.slice(0, 200), mode: "semantic", scope: "summaries" });
      expect(res.hits.length).toBeGreaterThan(0);
      expect(res.hits.every((h) => h.type === "summary")).toBe(true);
      const both = await grep(e.engine, { query: summaries[0]!.content.slice(0, 200), mode: "semantic", limit: 50 });
      expect(new Set(both.hits.map((h) => h.type))).toEqual(new Set(["message", "summary"]));
    } finally {
      await e.cleanup();
    }
  });

  run("an export carries no vectors; the imported conversation is embedded again in the background", async () => {
    const from = await engineOn(kind, { base_url: server.baseUrl, model: "toy-1" });
    const to = await engineOn(kind, { base_url: server.baseUrl, model: "toy-1" });
    try {
      await from.engine.onTurnComplete(conversation(), null, { sessionId: "s" });
      await from.engine.whenIdle("s");
      const doc = await exportConversation(await from.engine.openStore(), "s");
      expect(JSON.stringify(doc)).not.toMatch(/vector|embedding/i);
      await importConversation(await to.engine.openStore(), doc, { as: "s" });
      await to.engine.onSessionStart("s");
      await to.engine.whenIdle("s");
      expect(await vectorRows(to.engine, "toy-1")).toBe(6);
      const res = await grep(to.engine, { query: "adopt", mode: "semantic" });
      expect(res.hits[0]!.snippet).toContain("puppy");
    } finally {
      await from.cleanup();
      await to.cleanup();
    }
  });

  run("closing the engine stops a background request in flight instead of waiting for it", async () => {
    const e = await engineOn(kind, { base_url: server.baseUrl, model: "toy-1", timeout_ms: 120_000 });
    // Requests of earlier tests still held by the server (a 1 s delay) would be answered during this one.
    while (server.answered < server.requests.length) await new Promise((r) => setTimeout(r, 10));
    server.delayMs = 30_000;
    try {
      const before = server.answered;
      const sent = server.requests.length;
      await e.engine.onTurnComplete(conversation(), null, { sessionId: "s" });
      while (server.requests.length === sent) await new Promise((r) => setTimeout(r, 10));
      await e.engine.close();
      // Closed while the provider still held its answer: the request was aborted, not awaited.
      expect(server.answered).toBe(before);
    } finally {
      server.delayMs = 0;
      await e.cleanup();
    }
  });

  run("a new model re-embeds the history; forgetting the session deletes its vectors", async () => {
    const first = await engineOn(kind, { base_url: server.baseUrl, model: "toy-1" });
    await first.engine.onTurnComplete(conversation(), null, { sessionId: "s" });
    await first.engine.whenIdle("s");
    expect(await vectorRows(first.engine, "toy-1")).toBe(6);
    await first.engine.close();
    const second = await engineOn(kind, { base_url: server.baseUrl, model: "toy-2" }, { dir: first.dir, schema: first.schema });
    try {
      await second.engine.onSessionStart("s");
      await second.engine.whenIdle("s");
      expect(await vectorRows(second.engine, "toy-1")).toBe(0);
      expect(await vectorRows(second.engine, "toy-2")).toBe(6);
      expect(server.requests.some((r) => r.model === "toy-2")).toBe(true);
      await second.engine.forgetSession("s");
      expect(await vectorRows(second.engine, "toy-2")).toBe(0);
    } finally {
      await second.cleanup();
      await first.cleanup();
    }
  });
});

describe("SQLite vector index: sqlite-vec and the exact scan in JavaScript agree", () => {
  it("ranks the same neighbours with the same similarities, within the filter", async () => {
    const { tempStore } = await import("./helpers.js");
    const { SqliteLcmStore } = await import("../src/store/sqlite/store.js");
    const { SqliteVectorIndex } = await import("../src/embeddings/sqlite-vectors.js");
    const { toyEmbed } = await import("./embeddings/toy-embedder.js");
    const t = tempStore();
    try {
      const conv = t.store.conversation("s");
      t.store.ingest(conv.id, conversation());
      const db = SqliteLcmStore.handleOf(t.store as InstanceType<typeof SqliteLcmStore>);
      const withVec = new SqliteVectorIndex(db);
      const scan = new SqliteVectorIndex(db, { useSqliteVec: false });
      await withVec.prepare();
      await scan.prepare();
      expect(withVec.method).toMatch(/^sqlite-vec v0\.1\.9/);
      expect(scan.method).toBe("exact scan (float32 blobs)");
      const items = await scan.pending("m", { message: 0, summary: 0 }, 100);
      const texts = conversation().map((m) => String(m.content));
      await scan.put("m", items.map((it, i) => ({ ...it, vector: Float32Array.from(toyEmbed(texts[i]!)) })));
      const q = Float32Array.from(toyEmbed("adopt a dog"));
      const filter = { conversationId: conv.id, kinds: ["message"] as const };
      const a = await withVec.nearest("m", q, filter, 3);
      const b = await scan.nearest("m", q, filter, 3);
      expect(a.map((m) => m.id)).toEqual(b.map((m) => m.id));
      a.forEach((m, i) => expect(m.similarity).toBeCloseTo(b[i]!.similarity, 5));
      expect(a[0]!.id).toBe(items[1]!.id);
      expect(await scan.nearest("m", q, { ...filter, roles: ["user"] }, 10)).toHaveLength(3);
      expect(await scan.nearest("other-model", q, filter, 10)).toHaveLength(0);
    } finally {
      t.cleanup();
    }
  });
});
