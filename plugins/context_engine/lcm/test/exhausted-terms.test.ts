import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { ANSWER_FACTOR, DEFAULT_NEIGHBOUR_WEIGHT, topMessages, type FullTextContext } from "../src/search/full-text.js";
import { unfetchedBound } from "../src/search/exhausted-terms.js";
import { OwnScores, rankWithNeighbours } from "../src/search/neighbours.js";
import { ftsExpression, parseQuery, termExpression } from "../src/search/query.js";
import { asst, tempStore, user } from "./helpers.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

const COMMON = ["build", "deploy", "server", "cache", "query", "table"];
const RARE = ["zephyrine", "quillon"];
/** In about one message of eight: more holders than one batch fetches, fewer than the cap of counted holders. */
const SOMETIMES = "marmalade";

/** A seeded conversation: common words everywhere, each rare word in a few messages, some turns asking questions. */
function corpus(seed: number, size: number) {
  let x = seed || 1;
  const next = () => (x = (x * 48_271) % 2_147_483_647) / 2_147_483_647;
  return Array.from({ length: size }, (_, i) => {
    const words = Array.from({ length: 3 + Math.floor(next() * 6) }, () => COMMON[Math.floor(next() * COMMON.length)]!);
    for (const r of RARE) if (next() < 0.004) words.splice(Math.floor(next() * words.length), 0, r);
    if (next() < 0.12) words.push(...Array.from({ length: 1 + Math.floor(next() * 8) }, () => COMMON[Math.floor(next() * COMMON.length)]!), SOMETIMES);
    const text = words.join(" ") + (next() < 0.2 ? "?" : "");
    return i % 2 ? asst(text) : user(text);
  });
}

describe("the early stop of neighbour-scored rankings", () => {
  it("gives exactly the ranking of every match scored with its neighbours (rare and common words)", async () => {
    const t = tempStore({ redaction: false });
    cleanups.push(t.cleanup);
    const s = t.store;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 1_000_000 }), fc.constantFrom(...RARE, SOMETIMES, ...COMMON), fc.constantFrom(...COMMON), fc.integer({ min: 5, max: 60 }), async (seed, rare, common, need) => {
        if (rare === common) return;
        const c = s.conversation(`c${seed}-${rare}-${common}-${need}`);
        s.ingest(c.id, corpus(seed, 1_500), { mode: "append" });
        // A bulk ingest is indexed later (a search through searchHistory would index it first).
        while ((await s.indexPending({ maxMs: 1_000 })).remaining > 0);
        const search = await s.searchStore();
        const parsed = parseQuery(`${rare} ${common}`);
        const filter = { conversationId: c.id };
        const ctx: FullTextContext = { search, q: { query: `${rare} ${common}` }, filter, limit: need, key: "k", notes: [] };
        const fast = await topMessages(ctx, parsed, need);
        // Every match fetched: nothing left to bound.
        const all = await search.rankMessages(ftsExpression(parsed), filter, { limit: 100_000, offset: 0 });
        const nw = DEFAULT_NEIGHBOUR_WEIGHT;
        const exact = await rankWithNeighbours(search, filter, all, new OwnScores(search, ftsExpression(parsed)), {
          weights: [nw, nw / 2],
          answerWeight: ANSWER_FACTOR * nw,
          boost: () => 1,
          termExpressions: parsed.terms.map(termExpression),
        });
        expect(ctx.incomplete).toBeUndefined();
        expect(exact.length).toBeGreaterThan(need);
        expect(fast.map((r) => r.rowid)).toEqual(exact.slice(0, need).map((r) => r.rowid));
      }),
      { numRuns: 30 },
    );
    // 30 corpora of 1,500 messages: about 24 s on a loaded 2-core machine (Node 24 CI leg), over the 20 s default.
  }, 180_000);

  it("bounds an unfetched row by the terms it can still gain", () => {
    // Two terms, the rare one exhausted: a row can hold only the common one and gain nothing from a neighbour.
    expect(unfetchedBound(2, 1.25, [true, false])).toBe(2);
    // Both open: it may gain one term's worth (at most the last score) from a neighbour.
    expect(unfetchedBound(2, 1.25, [false, false])).toBe(2 + 1.25 * 2);
    // Everything exhausted: nothing unfetched matches.
    expect(unfetchedBound(2, 1.25, [true, true])).toBe(-Infinity);
    // One open term: the row holds it and lacks only exhausted ones.
    expect(unfetchedBound(2, 1.25, [false])).toBe(2);
  });
});
