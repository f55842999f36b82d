import fc from "fast-check";
import { describe, expect, it } from "vitest";
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
