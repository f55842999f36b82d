import type { Message } from "@context-engine/core";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_QUERY_CHARS, MAX_QUERY_TERMS } from "../../src/search/query.js";
import { searchHistory } from "../../src/search/index.js";
import type { SearchQuery } from "../../src/search/types.js";
import type { LcmStoreDriver } from "../../src/store/types.js";
import { storeScope, type StoreContractOptions } from "./factory.js";

/** Errors the search module itself gives for a query it cannot run; anything else would be the database's. */
const CLEAR = /no searchable words|at most \d+|pattern|regex|query must be/i;

async function outcome(store: LcmStoreDriver, q: SearchQuery): Promise<{ hits: number[]; notes: string[] } | { error: string }> {
  try {
    const r = await searchHistory(store, q);
    return { hits: r.hits.map((h) => h.seq!), notes: r.notes };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** Hostile query text: NUL anywhere, and sizes far past what a search should take. */
export function searchInputContract(options: StoreContractOptions): void {
  describe("search input", () => {
    const scope = storeScope(options);
    afterEach(() => scope.disposeAll());

    async function seeded(): Promise<{ store: LcmStoreDriver; conversationId: number }> {
      const store = await scope.open({ redaction: false });
      const conv = await store.conversation("s");
      const texts = ["hello world", "hel lo there", "a NUL\u0000inside", "payment timeout"];
      await store.ingest(conv.id, texts.map((content) => ({ role: "user", content }) as Message));
      return { store, conversationId: conv.id };
    }

    it("a NUL byte alone, inside a word or inside quotes gets a clear answer, never a database error", async () => {
      const { store, conversationId } = await seeded();
      expect(await outcome(store, { query: "\u0000", conversationId })).toEqual({ error: expect.stringMatching(/no searchable words/) });
      const inWord = await outcome(store, { query: "hel\u0000lo", conversationId });
      expect(inWord).toMatchObject({ hits: [1], notes: [expect.stringMatching(/control characters \(such as NUL\) in the query were read as spaces/)] });
      expect(await outcome(store, { query: '"hello\u0000 world"', conversationId })).toMatchObject({ hits: [0] });
      expect(await outcome(store, { query: "payment*\u0000", conversationId })).toMatchObject({ hits: [3] });
      // regex mode: refused plainly (stores keep searchable text with and without NUL: no pattern could answer alike)
      for (const query of ["NUL\u0000inside", "\u0000", "(a|\u0000)"]) {
        expect(await outcome(store, { query, conversationId, mode: "regex" })).toEqual({ error: expect.stringMatching(/regex pattern contains a NUL character/) });
      }
    });

    it("generated queries with NUL bytes never reach the database as an error", async () => {
      const { store, conversationId } = await seeded();
      const withNul = fc.tuple(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 })).map(([a, b]) => `${a}\u0000${b}`);
      await fc.assert(
        fc.asyncProperty(withNul, fc.constantFrom("full_text", "regex") as fc.Arbitrary<"full_text" | "regex">, async (query, mode) => {
          const r = await outcome(store, { query, conversationId, mode });
          if ("error" in r) expect(r.error).toMatch(CLEAR);
        }),
        { numRuns: 60 },
      );
    });

    it("very large queries are refused by size with a clear message, before the database", async () => {
      const { store, conversationId } = await seeded();
      const orTerms = Array.from({ length: 30_000 }, (_, i) => `w${i}`).join(" OR ");
      expect(await outcome(store, { query: orTerms, conversationId })).toEqual({ error: expect.stringMatching(new RegExp(`at most ${MAX_QUERY_CHARS} are searched`)) });
      const words = Array.from({ length: 40_000 }, (_, i) => `word${i}`).join(" ");
      expect(await outcome(store, { query: words, conversationId, mode: "regex" })).toEqual({ error: expect.stringMatching(/at most \d+ are searched/) });
      const many = Array.from({ length: MAX_QUERY_TERMS + 1 }, (_, i) => `t${i}`).join(" OR ");
      expect(await outcome(store, { query: many, conversationId })).toEqual({ error: expect.stringMatching(new RegExp(`at most ${MAX_QUERY_TERMS} are searched at once`)) });
      const allowed = Array.from({ length: MAX_QUERY_TERMS }, (_, i) => (i === 0 ? "payment" : `t${i}`)).join(" OR ");
      expect(await outcome(store, { query: allowed, conversationId })).toMatchObject({ hits: [3] });
    });
  });
}
