import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EmbeddingsConfigSchema } from "../src/embeddings/config.js";
import { fuseHybrid, lexicalHeadLength, type VectorHit, type WordHit } from "../src/search/hybrid-fusion.js";

const OPTS = { gate: 0.5, lexicalWeight: 5 };

/** A word ranking: distinct keys, BM25-like scores, best first. */
const wordRanking = fc
  .uniqueArray(fc.record({ key: fc.integer({ min: 0, max: 60 }).map((n) => `msg_${n}`), score: fc.double({ min: 0.01, max: 40, noNaN: true }) }), { selector: (w) => w.key, maxLength: 25 })
  .map((ws) => [...ws].sort((a, b) => b.score - a.score));

/** A vector ranking over the same key space (so it overlaps the words at random), nearest first. */
const vectorRanking = fc
  .uniqueArray(fc.record({ key: fc.integer({ min: 0, max: 60 }).map((n) => `msg_${n}`), similarity: fc.double({ min: -1, max: 1, noNaN: true }) }), { selector: (v) => v.key, maxLength: 25 })
  .map((vs) => [...vs].sort((a, b) => b.similarity - a.similarity));

const gates = fc.double({ min: 0, max: 1, noNaN: true });
const weights = fc.double({ min: 0.1, max: 100, noNaN: true });
const keys = (xs: ReadonlyArray<{ key: string }>) => xs.map((x) => x.key);

describe("hybrid fusion: vectors cannot demote a strong word hit", () => {
  it("with any vector ranking (random, or empty) the head is the word ranking's strong hits, in order", () => {
    fc.assert(
      fc.property(wordRanking, vectorRanking, gates, weights, (words, vectors, gate, lexicalWeight) => {
        const fused = fuseHybrid(words, vectors, { gate, lexicalWeight });
        const n = lexicalHeadLength(words, gate);
        expect(keys(fused.slice(0, n))).toEqual(keys(words.slice(0, n)));
        expect(fused.slice(0, n).every((f) => f.head)).toBe(true);
        if (words.length) expect(fused[0]!.key).toBe(words[0]!.key);
        // Strong = at least gate × the best word score: all of them are in the head.
        for (const w of words) if (w.score >= gate * words[0]!.score) expect(keys(fused.slice(0, n))).toContain(w.key);
      }),
    );
  });

  it("at gate 0 (a query naming a date, vector-search.ts) every word hit keeps its place; vectors only add below them", () => {
    fc.assert(
      fc.property(wordRanking, vectorRanking, weights, (words, vectors, lexicalWeight) => {
        const fused = fuseHybrid(words, vectors, { gate: 0, lexicalWeight });
        expect(keys(fused.slice(0, words.length))).toEqual(keys(words));
        const inWords = new Set(keys(words));
        expect(keys(fused.slice(words.length))).toEqual(keys(vectors).filter((k) => !inWords.has(k)));
      }),
    );
  });

  it("with no vectors the fused list is the word ranking; with no words it is the vector ranking", () => {
    fc.assert(
      fc.property(wordRanking, vectorRanking, gates, weights, (words, vectors, gate, lexicalWeight) => {
        expect(keys(fuseHybrid(words, [], { gate, lexicalWeight }))).toEqual(keys(words));
        expect(keys(fuseHybrid([], vectors, { gate, lexicalWeight }))).toEqual(keys(vectors));
      }),
    );
  });

  it("loses nothing and repeats nothing; scores never rise down the list", () => {
    fc.assert(
      fc.property(wordRanking, vectorRanking, gates, weights, (words, vectors, gate, lexicalWeight) => {
        const fused = fuseHybrid(words, vectors, { gate, lexicalWeight });
        expect(new Set(keys(fused))).toEqual(new Set([...keys(words), ...keys(vectors)]));
        expect(fused.length).toBe(new Set(keys(fused)).size);
        for (let i = 1; i < fused.length; i++) expect(fused[i]!.score).toBeLessThanOrEqual(fused[i - 1]!.score);
      }),
    );
  });

  it("below the head, a word hit the vectors agree with rises over an equal one they do not", () => {
    const words: WordHit[] = [
      { key: "a", score: 10 },
      { key: "b", score: 3 },
      { key: "c", score: 3 },
    ];
    const vectors: VectorHit[] = [
      { key: "z", similarity: 0.9 },
      { key: "c", similarity: 0.8 },
      { key: "y", similarity: 0.1 },
    ];
    const fused = fuseHybrid(words, vectors, OPTS);
    expect(keys(fused)).toEqual(["a", "c", "b", "z", "y"]);
    expect(fused.map((f) => f.head)).toEqual([true, false, false, false, false]);
  });

  it("a vector-only item enters above weak word hits, never above the head", () => {
    const words: WordHit[] = [
      { key: "a", score: 10 },
      { key: "b", score: 6 },
      { key: "c", score: 1 },
    ];
    const vectors: VectorHit[] = [
      { key: "z", similarity: 0.9 },
      { key: "y", similarity: 0.2 },
    ];
    // c: 1/10 = 0.1; z: 1/5 = 0.2, so z passes c; a and b (≥ 0.5 × 10) stay first.
    expect(keys(fuseHybrid(words, vectors, OPTS))).toEqual(["a", "b", "z", "c", "y"]);
    // Gate 0: every word hit is protected, vectors only add below them.
    expect(keys(fuseHybrid(words, vectors, { ...OPTS, gate: 0 }))).toEqual(["a", "b", "c", "z", "y"]);
  });
});

describe("hybrid fusion: words first (the bound lexical_weight sets)", () => {
  const position = (fused: ReadonlyArray<{ key: string }>, key: string) => fused.findIndex((f) => f.key === key);

  it("an item found only by meaning never passes a word hit scoring at least 1/lexicalWeight of the best", () => {
    fc.assert(
      fc.property(wordRanking, vectorRanking, gates, weights, (words, vectors, gate, lexicalWeight) => {
        const fused = fuseHybrid(words, vectors, { gate, lexicalWeight });
        const wordKeys = new Set(keys(words));
        const best = words[0]?.score ?? 0;
        for (const v of vectors) {
          if (wordKeys.has(v.key)) continue;
          for (const w of words) if (w.score * lexicalWeight >= best) expect(position(fused, w.key)).toBeLessThan(position(fused, v.key));
        }
      }),
    );
  });

  it("two word hits swap only when their scores differ by less than 1/lexicalWeight of the best", () => {
    fc.assert(
      fc.property(wordRanking, vectorRanking, gates, weights, (words, vectors, gate, lexicalWeight) => {
        const fused = fuseHybrid(words, vectors, { gate, lexicalWeight });
        const best = words[0]?.score ?? 0;
        for (let i = 0; i < words.length; i++) {
          for (let j = i + 1; j < words.length; j++) {
            if (position(fused, words[j]!.key) < position(fused, words[i]!.key)) expect((words[i]!.score - words[j]!.score) * lexicalWeight).toBeLessThan(best);
          }
        }
      }),
    );
  });

  it("with the defaults, hits from a quarter of the best keep their order and meaning alone passes only hits below 1/15", () => {
    const config = EmbeddingsConfigSchema.parse({ base_url: "http://127.0.0.1:9/v1", model: "m" });
    const defaults = { gate: config.lexical_gate, lexicalWeight: config.lexical_weight };
    expect(defaults).toEqual({ gate: 0.25, lexicalWeight: 15 });
    const words: WordHit[] = [
      { key: "best", score: 20 },
      { key: "quarter", score: 5 },
      { key: "tenth", score: 2 },
      { key: "twentieth", score: 1 },
      { key: "fiftieth", score: 0.4 },
    ];
    // Meaning disagrees with the words: it likes "z" (not a word hit) most, then the weak "twentieth".
    const vectors: VectorHit[] = [
      { key: "z", similarity: 0.9 },
      { key: "twentieth", similarity: 0.85 },
      { key: "tenth", similarity: 0.1 },
      { key: "y", similarity: 0.05 },
    ];
    // Below the head (best, quarter): twentieth 0.05 + 0.8/0.85/15 ≈ 0.113 passes tenth 0.1 + 0.05/0.85/15 ≈ 0.104
    // (0.05 apart, under 1/15); z scores 1/15 ≈ 0.067: above fiftieth (0.02), below the tenth.
    const fused = fuseHybrid(words, vectors, defaults);
    expect(keys(fused)).toEqual(["best", "quarter", "twentieth", "tenth", "z", "fiftieth", "y"]);
    expect(fused.map((f) => f.head)).toEqual([true, true, false, false, false, false, false]);
    // The former defaults (gate 0.5, weight 5) let z (0.2) pass the word hit at a tenth of the best.
    expect(keys(fuseHybrid(words, vectors, { gate: 0.5, lexicalWeight: 5 }))).toEqual(["best", "quarter", "twentieth", "z", "tenth", "fiftieth", "y"]);
  });
});
