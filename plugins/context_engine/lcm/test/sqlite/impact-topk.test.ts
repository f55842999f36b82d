import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Message } from "@context-engine/core";
import { deleteConversation } from "../../src/retention/index.js";
import { searchHistory } from "../../src/search/index.js";
import type { SearchQuery } from "../../src/search/types.js";
import { catchUpImpacts, IMPACT } from "../../src/store/sqlite/impact-index.js";
import { impactTopK } from "../../src/store/sqlite/impact-rank.js";
import { SqliteSearchStore } from "../../src/store/sqlite/search.js";
import { sqliteHandle } from "../../src/store/sqlite/store.js";
import type { LcmStore } from "../../src/store/types.js";
import { join } from "node:path";
import { openLcmStore, SCHEMA_VERSION } from "../../src/store/index.js";
import { LcmEngine } from "../../src/index.js";
import { tempStore } from "../helpers.js";

/**
 * The impact lists answer the same page as FTS5's own ranking (ORDER BY bm25, rowid DESC), on random
 * corpora and queries: two conversations with interleaved ids, ingested in several batches (the lists are
 * kept up incrementally), small lists (k = 6) so most are truncated, and a deleted conversation.
 */
const saved = { ...IMPACT };
beforeEach(() => Object.assign(IMPACT, { minMessages: 1, k: 6, batch: 7 }));
afterEach(() => Object.assign(IMPACT, saved));

const VOCAB = ["alpha", "beta", "gamma", "delta", "running", "runs", "epsilon", "zeta"];
/** Skewed word choice: alpha is in most messages, zeta in few. */
const word = fc.integer({ min: 0, max: 63 }).map((n) => VOCAB[Math.min(VOCAB.length - 1, Math.floor(Math.log2(n + 1)))]!);
const text = fc.array(word, { minLength: 1, maxLength: 9 }).map((ws) => ws.join(" "));
const corpus = fc.array(fc.tuple(fc.integer({ min: 0, max: 1 }), fc.array(text, { minLength: 1, maxLength: 12 })), { minLength: 2, maxLength: 8 });
const queryWords = fc.array(fc.constantFrom(...VOCAB, "missing"), { minLength: 1, maxLength: 3 });
/** Large enough that the first round's 50 best (FEEDBACK_POOL) come from truncated lists. */
const bigCorpus = fc.array(fc.tuple(fc.integer({ min: 0, max: 1 }), fc.array(text, { minLength: 20, maxLength: 60 })), { minLength: 3, maxLength: 6 });
const page = fc.record({ limit: fc.integer({ min: 1, max: 4 }), offset: fc.integer({ min: 0, max: 2 }) });

function fill(store: LcmStore, batches: Array<[number, string[]]>): number[] {
  const convs = [store.conversation("a").id, store.conversation("b").id];
  const db = sqliteHandle(store);
  for (const [c, texts] of batches) {
    store.ingest(convs[c]!, texts.map((t, i): Message => ({ role: i % 2 ? "assistant" : "user", content: t })), { mode: "append", appendToFrontier: false });
    catchUpImpacts(db, 1_000);
  }
  return convs;
}

/** FTS5's own ranking of the page: the fast path off (no page fits lists of depth 0). */
function slowPage(search: SqliteSearchStore, expression: string, conversationId: number, p: { limit: number; offset: number }) {
  const k = IMPACT.k;
  IMPACT.k = 0;
  try {
    return search.rankMessages(expression, { conversationId }, p);
  } finally {
    IMPACT.k = k;
  }
}

describe("impact lists (SQLite)", () => {
  it("rank a page of plain words exactly as FTS5 does, and answer single words from the lists", () => {
    let fastSingle = 0;
    let fastSeveral = 0;
    fc.assert(
      fc.property(corpus, queryWords, page, (batches, words, p) => {
        const { store, cleanup } = tempStore({ redaction: false });
        try {
          const convs = fill(store, batches);
          const db = sqliteHandle(store);
          const search = store.searchStore() as SqliteSearchStore;
          const expression = `body:(${words.map((w) => `"${w}"`).join(" OR ")})`;
          for (const c of convs) {
            const fast = search.rankMessages(expression, { conversationId: c }, p);
            expect(fast).toEqual(slowPage(search, expression, c, p));
            const hi = (db.prepare("SELECT max(id) AS hi FROM messages WHERE conversation_id = ?").get(c) as { hi: number | null }).hi ?? 0;
            const direct = impactTopK(db, expression, c, hi, p.limit + p.offset, (ids) => search.scoreMessages(expression, ids));
            if (words.length === 1 && hi > 0) {
              expect(direct).not.toBeNull();
              fastSingle++;
            }
            if (new Set(words).size > 1 && direct) fastSeveral++;
          }
        } finally {
          cleanup();
        }
      }),
      { numRuns: 60, seed: 34 },
    );
    expect(fastSingle).toBeGreaterThan(30);
    // Several words are answered from the lists when at most one list is truncated and the proof holds.
    expect(fastSeveral).toBeGreaterThan(5);
  });

  it("gives the same lcm_grep answers with and without the lists, feedback round and paging included", async () => {
    let used = 0;
    await fc.assert(
      fc.asyncProperty(bigCorpus, queryWords, fc.integer({ min: 1, max: 3 }), async (batches, words, limit) => {
        IMPACT.k = 50;
        const { store, cleanup } = tempStore({ redaction: false });
        try {
          const [a] = fill(store, batches);
          const q: SearchQuery = { query: words.join(" "), conversationId: a!, limit, scope: "messages" };
          const fast = await searchHistory(store, q);
          const k = IMPACT.k;
          IMPACT.k = 0;
          const slow = await searchHistory(store, q).finally(() => (IMPACT.k = k));
          expect(fast).toEqual(slow);
          // The first round's 50 came from the lists (a missing word has an empty, complete list).
          const db = sqliteHandle(store);
          const hi = (db.prepare("SELECT max(id) AS hi FROM messages WHERE conversation_id = ?").get(a!) as { hi: number }).hi;
          const search = store.searchStore() as SqliteSearchStore;
          const expression = `body:("${words[0]}")`;
          if (words.length === 1 && impactTopK(db, expression, a!, hi, 50, (ids) => search.scoreMessages(expression, ids))) used++;
        } finally {
          cleanup();
        }
      }),
      { numRuns: 25, seed: 35 },
    );
    expect(used).toBeGreaterThan(5);
  });

  it("rebuilds a conversation's lists after a delete and drops a deleted conversation's lists", async () => {
    const { store, cleanup } = tempStore({ redaction: false });
    try {
      const db = sqliteHandle(store);
      const [a, b] = fill(store, [
        [0, ["alpha beta", "alpha alpha", "alpha gamma beta", "alpha"]],
        [1, ["alpha", "alpha beta beta", "beta"]],
        [0, ["alpha alpha alpha", "gamma", "alpha beta"]],
      ]);
      const count = (c: number) => (db.prepare("SELECT count(*) AS n FROM impact_postings WHERE conversation_id = ?").get(c) as { n: number }).n;
      expect(count(b!)).toBeGreaterThan(0);
      await deleteConversation(store, b!);
      catchUpImpacts(db, 1_000);
      expect(count(b!)).toBe(0);
      expect(db.prepare("SELECT count(*) AS n FROM impact_conversations WHERE conversation_id = ?").get(b!)).toEqual({ n: 0 });
      // A delete inside a caught-up conversation marks it for a rebuild: no page is answered from it until then.
      db.prepare("DELETE FROM messages_fts WHERE rowid = (SELECT min(id) FROM messages WHERE conversation_id = ?)").run(a!);
      db.prepare("DELETE FROM messages WHERE id = (SELECT min(id) FROM messages WHERE conversation_id = ?)").run(a!);
      const hi = (db.prepare("SELECT max(id) AS hi FROM messages WHERE conversation_id = ?").get(a!) as { hi: number }).hi;
      const search = store.searchStore() as SqliteSearchStore;
      const expr = 'body:("alpha")';
      expect(impactTopK(db, expr, a!, hi, 3, (ids) => search.scoreMessages(expr, ids))).toBeNull();
      catchUpImpacts(db, 1_000);
      expect(impactTopK(db, expr, a!, hi, 3, (ids) => search.scoreMessages(expr, ids))).toEqual(slowPage(search, expr, a!, { limit: 3, offset: 0 }).map((r) => ({ rowid: r.rowid, score: r.score })));
    } finally {
      cleanup();
    }
  });

  it("migrates a version 7 store: the tables appear, the lists fill in the background, searches answer the same meanwhile", async () => {
    const { store, dir, cleanup } = tempStore({ redaction: false });
    const path = join(dir, "v7.sqlite");
    let reopened: LcmStore | null = null;
    try {
      const old = openLcmStore({ path, redaction: false });
      const conv = old.conversation("s").id;
      old.ingest(conv, ["alpha beta", "alpha", "alpha alpha gamma", "beta", "alpha beta alpha"].map((c): Message => ({ role: "user", content: c })), { mode: "append" });
      const raw = sqliteHandle(old);
      raw.exec("DROP TRIGGER impact_forget; DROP TABLE impact_postings; DROP TABLE impact_terms; DROP TABLE impact_conversations;");
      raw.pragma("user_version = 7");
      old.close();
      reopened = openLcmStore({ path, redaction: false });
      const db = sqliteHandle(reopened);
      expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
      expect(db.prepare("SELECT count(*) AS n FROM impact_postings").get()).toEqual({ n: 0 });
      const q: SearchQuery = { query: "alpha", conversationId: conv, limit: 3, scope: "messages" };
      const before = await searchHistory(reopened, q);
      expect(catchUpImpacts(db, 1_000)).toBe(true);
      expect((db.prepare("SELECT count(*) AS n FROM impact_postings WHERE term = 'alpha'").get() as { n: number }).n).toBeGreaterThan(0);
      expect(await searchHistory(reopened, q)).toEqual(before);
    } finally {
      reopened?.close();
      cleanup();
    }
  });

  it("are filled by the engine's background index drain after a turn, with no search", async () => {
    const { dir, cleanup } = tempStore({ redaction: false });
    const engine = new LcmEngine({ config: { database_path: join(dir, "engine.sqlite"), redaction: false } });
    try {
      const history: Message[] = Array.from({ length: 40 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `alpha line ${i} beta${i % 3}` }));
      await engine.onTurnComplete(history, null, { sessionId: "d" });
      await engine.whenIdle("d");
      const db = sqliteHandle((await engine.openStore()) as LcmStore);
      expect(db.prepare("SELECT count(*) AS n FROM impact_terms WHERE term = 'alpha'").get()).toEqual({ n: 1 });
      expect(db.prepare("SELECT df FROM impact_terms WHERE term = 'alpha'").get()).toEqual({ df: 40 });
    } finally {
      engine.close();
      cleanup();
    }
  });
});
