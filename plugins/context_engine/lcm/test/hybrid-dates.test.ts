import type { Message } from "@context-engine/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LcmEngine } from "../src/index.js";
import { tempDir } from "./engine-helpers.js";
import { startToyServer, type ToyServer } from "./embeddings/toy-embedder.js";
import { dropSchema, POSTGRES_URL, postgresReachable, randomSchema } from "./postgres/server.js";

const DAY = 86_400_000;
const JAN = Date.parse("2022-01-10T12:00:00Z");
const APRIL = Date.parse("2022-04-12T12:00:00Z");

/**
 * Nate speaks in most turns, so his name scores near zero by words; one turn holds the rare word "adopt"; the April
 * turn holds no other query word (words rank it by the date alone); Joanna's pet turns share no query word but are
 * near "adopt" for the toy embedder (a vector-only item that would fill the page below the strong word hit).
 */
function conversation(): { messages: Message[]; times: number[] } {
  const turns: Array<[string, number]> = [
    ["Nate: we might adopt a cat one day, maybe next year.", JAN],
    ["Joanna: the puppy and the kitten sleep together on the sofa.", JAN + DAY],
    ["Nate: the game last night went to overtime.", JAN + 2 * DAY],
    ["Joanna: my dog chased a kitten across the yard.", JAN + 3 * DAY],
    ["Nate: I cooked noodles for dinner again.", JAN + 30 * DAY],
    ["Joanna: a puppy pet is a lot of work, the dog too.", JAN + 31 * DAY],
    ["Nate: traffic on the bridge was terrible this morning.", JAN + 60 * DAY],
    ["Nate: I lifted weights every day and lost twenty pounds.", APRIL],
    ["Nate: my sister visited for the weekend.", APRIL + 40 * DAY],
    ["Nate: the new phone arrived with a cracked screen.", APRIL + 41 * DAY],
  ];
  return { messages: turns.map(([content], i) => ({ role: i % 2 ? "assistant" : "user", content }) as Message), times: turns.map(([, t]) => t) };
}

async function grep(engine: LcmEngine, query: string, limit: number) {
  const answer = JSON.parse(await engine.handleToolCall("lcm_grep", { query, limit }, { sessionId: "s" })) as { mode: string; hits: Array<{ ref: string; snippet: string }> };
  return { mode: answer.mode, refs: answer.hits.map((h) => h.ref), snippets: answer.hits.map((h) => h.snippet) };
}

const pgUp = await postgresReachable();

describe.each(["sqlite", "postgres"] as const)("hybrid retrieval of a query naming a date, on %s", (kind) => {
  let server: ToyServer;
  beforeAll(async () => {
    server = await startToyServer();
  });
  afterAll(async () => server.close());
  const run = kind === "postgres" && !pgUp ? it.skip : it;

  run("keeps every word hit where words put it (the date's choice); meaning adds only below them", async () => {
    const t = tempDir();
    const schema = randomSchema();
    const store = kind === "sqlite" ? {} : { store: POSTGRES_URL, schema, pool_size: 2 };
    const engine = (embeddings?: object) => new LcmEngine({ dataDir: t.dir, contextLength: 100_000, config: { ...store, ...(embeddings ? { embeddings } : {}) } });
    const hybrid = engine({ base_url: server.baseUrl, model: "toy-1", batch_size: 4 });
    const { messages, times } = conversation();
    try {
      await hybrid.onTurnComplete(messages, null, { sessionId: "s", messageTimes: times });
      await hybrid.whenIdle("s");
      const words = engine();
      const dated = "What did Nate adopt in April 2022?";
      const wordPage = await grep(words, dated, 4);
      await words.close();
      // Words alone: the "adopt" turn and the April turn (its only query word is Nate's name: ranked by the date).
      expect(wordPage.mode).toBe("full_text");
      expect(wordPage.snippets.slice(0, 2).sort().join(" ")).toMatch(/lifted weights.*adopt/);
      const fused = await grep(hybrid, dated, 4);
      expect(fused.mode).toBe("hybrid");
      expect(fused.refs).toEqual(wordPage.refs);
      // Deeper than the word hits, meaning adds Joanna's pet turns, which hold no query word.
      const deep = await grep(hybrid, dated, 10);
      expect(deep.refs.slice(0, wordPage.refs.length)).toEqual(wordPage.refs);
      expect(deep.snippets.some((s) => s.includes("puppy"))).toBe(true);
      // The same question without a date: the strong word hit heads the list, and on SQLite (where a word in most turns
      // scores near zero by bm25; PostgreSQL's ranking scores Nate's name higher) the pet turns pass Nate's other turns.
      const undated = await grep(hybrid, "What did Nate adopt?", 4);
      expect(undated.snippets[0]).toContain("adopt");
      if (kind === "sqlite") expect(undated.snippets.some((s) => s.includes("puppy") || s.includes("kitten"))).toBe(true);
    } finally {
      await hybrid.close();
      t.cleanup();
      if (kind === "postgres") await dropSchema(schema);
    }
  });
});
