import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Message } from "@context-engine/core";
import { SECRET_CORPUS } from "@context-engine/core/test";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { exportConversation, LcmEngine, openLcmStore } from "../src/index.js";
import { PostgresLcmStore } from "../src/store/postgres/store.js";
import type { LcmStoreDriver } from "../src/store/types.js";
import { handleLcmToolCall } from "../src/tools/index.js";
import { agentConversation, FakeSummarizer, tempDir } from "./engine-helpers.js";
import { dropSchema, POSTGRES_URL, postgresReachable, randomSchema } from "./postgres/server.js";

/**
 * Every place a stored or summarised message goes — the SQLite file, the
 * PostgreSQL rows, exports, lcm_grep results, the summariser's prompt — holds
 * none of the corpus secrets (every family), whichever way they arrived:
 * user text, tool-call arguments, tool results, text parts.
 */

const reachable = await postgresReachable();
const SECRETS = SECRET_CORPUS.map((c) => c.secret);

/** The corpus in every message shape the stores take. */
function planted(): Message[] {
  const out: Message[] = [{ role: "system", content: "You are a deploy assistant." }];
  SECRET_CORPUS.forEach(({ text }, i) => {
    out.push({ role: "user", content: `step ${i}: ${text}` });
    out.push({
      role: "assistant",
      content: null,
      tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "shell", arguments: JSON.stringify({ cmd: text }) } }],
    } as Message);
    out.push({ role: "tool", tool_call_id: `call_${i}`, content: `$ ${text}\nok` });
    out.push({ role: "assistant", content: [{ type: "text", text: `Ran step ${i}: ${text}` }] } as Message);
  });
  return out;
}

function leaked(haystack: string): string[] {
  return SECRETS.filter((s) => haystack.includes(s));
}

let cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function sqliteStore(): { store: LcmStoreDriver; dir: string } {
  const t = tempDir();
  const store = openLcmStore({ dataDir: t.dir });
  cleanups.push(t.cleanup);
  return { store, dir: t.dir };
}

async function postgresStore(): Promise<{ store: PostgresLcmStore; schema: string }> {
  const schema = randomSchema();
  const store = await PostgresLcmStore.open({ url: POSTGRES_URL, schema, poolSize: 2 });
  cleanups.push(async () => {
    await store.close();
    await dropSchema(schema);
  });
  return { store, schema };
}

/** What a user of the store gets back: an export and lcm_grep answers for pieces of every secret and for the markers. */
async function readBack(store: LcmStoreDriver): Promise<string> {
  const conv = await store.findConversation("deploy");
  const doc = await exportConversation(store, "deploy");
  const ctx = { conversationId: conv!.id };
  const answers: string[] = [JSON.stringify(doc)];
  // The answer echoes its query (here a piece of a secret) in `query` and `notes`: the hits are what the store returns.
  const grep = async (args: Record<string, unknown>) => {
    const answer = JSON.parse(await handleLcmToolCall(store, "lcm_grep", args, ctx)) as { hits?: unknown };
    expect(answer.hits, JSON.stringify(answer)).toBeInstanceOf(Array);
    return JSON.stringify(answer.hits);
  };
  for (const query of ["REDACTED", "step", ...SECRETS.map((s) => s.slice(0, 12))]) {
    answers.push(await grep({ query }));
    answers.push(await grep({ query: query.replace(/[^\w]/g, "."), mode: "regex" }));
  }
  return answers.join("\n");
}

describe("every sink holds no secret", () => {
  it("SQLite: the database file (with its WAL), exports and lcm_grep results", async () => {
    const { store, dir } = sqliteStore();
    const conv = await store.conversation("deploy");
    const r = await store.ingest(conv.id, planted());
    expect(Object.keys(r.redactions).length).toBeGreaterThan(5);
    const answers = await readBack(store);
    expect(answers).toContain("[REDACTED:");
    expect(leaked(answers)).toEqual([]);
    await store.close();
    const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(files.length).toBeGreaterThan(0);
    const bytes = files.map((e) => readFileSync(join(e.parentPath, e.name)).toString("latin1")).join("\n");
    expect(bytes).toContain("REDACTED");
    expect(leaked(bytes)).toEqual([]);
  });

  it.skipIf(!reachable)("PostgreSQL: every row of every table in the schema, exports and lcm_grep results", async () => {
    const { store, schema } = await postgresStore();
    const conv = await store.conversation("deploy");
    await store.ingest(conv.id, planted());
    const answers = await readBack(store);
    expect(answers).toContain("[REDACTED:");
    expect(leaked(answers)).toEqual([]);
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    try {
      const tables = await client.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = $1", [schema]);
      expect(tables.rows.map((t) => t.table_name)).toContain("messages");
      let dump = "";
      for (const { table_name } of tables.rows) {
        const rows = await client.query(`SELECT * FROM "${schema}"."${table_name}"`);
        dump += JSON.stringify(rows.rows);
      }
      expect(dump).toContain("REDACTED");
      expect(leaked(dump)).toEqual([]);
    } finally {
      await client.end();
    }
  });

  it("the summariser's prompt, and the summaries made from it", async () => {
    const t = tempDir();
    const model = new FakeSummarizer();
    const engine = new LcmEngine({ dataDir: t.dir, contextLength: 8_000, chatModel: model });
    cleanups.push(t.cleanup, () => engine.close());
    const [system, ...secrets] = planted();
    const input = [system!, ...secrets, ...agentConversation(30, 3).slice(1)];
    await engine.compress(input, { sessionId: "deploy" });
    expect(model.calls).toBeGreaterThan(0);
    const prompts = JSON.stringify(model.requests.map((r) => r.messages));
    expect(prompts).toContain("[REDACTED:");
    expect(leaked(prompts)).toEqual([]);
    const conv = (await engine.store.findConversation("deploy"))!;
    const summaries = JSON.stringify(await exportConversation(engine.store, "deploy"));
    expect(conv.messageCount).toBe(input.length - 1);
    expect(leaked(summaries)).toEqual([]);
  });
});
