import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { startEmbedServer } from "../src/embed-server.js";
import { conversationLists } from "../src/fusion-lists.js";
import { evalHybridConversation, hybridByConversation, renderHybridByConversation, renderHybridTable, summarizeHybrid } from "../src/hybrid.js";
import { readLocomo } from "../src/locomo-data.js";

const dataDir = process.env.CONTEXT_ENGINE_DATA_DIR ?? resolve(import.meta.dirname, "../../../../shared/data");
const locomoFile = join(dataDir, "locomo", "locomo7.json");

/** A stand-in for USE-lite: words hashed into 64 dimensions (the step's plumbing, not its quality, is tested here). */
const toyModel = {
  async embed(texts: string[]): Promise<number[][]> {
    return texts.map((t) => {
      const v = new Array<number>(64).fill(0);
      for (const w of t.toLowerCase().match(/[a-z]+/g) ?? []) {
        let h = 7;
        for (let i = 0; i < w.length; i++) h = (h * 31 + w.charCodeAt(i)) >>> 0;
        v[h % 64]! += 1;
      }
      return v;
    });
  },
};

describe("hybrid step", () => {
  it("summarises recall@10 per method and category and renders one row per method", () => {
    const runs = [
      { id: "a", degraded: 1, questions: [
        { category: 1, at10: { semantic_raw: 0, hybrid_words: 1, hybrid_raw: 0.5 } },
        { category: 2, at10: { semantic_raw: 1, hybrid_words: 1, hybrid_raw: 1 } },
      ] },
    ];
    const s = summarizeHybrid(runs);
    expect(s.hybrid_words).toEqual({ all: 1, 1: 1, 2: 1 });
    expect(s.semantic_raw).toEqual({ all: 0.5, 1: 0, 2: 1 });
    expect(s.degraded).toBe(1);
    const table = renderHybridTable(s, { words: { all: { at10: 0.9 }, 1: { at10: 0.8 }, 2: { at10: 1 } }, raw: { all: { at10: 0.7 }, 1: { at10: 0.4 }, 2: { at10: 1 } } }, { texts: 3, cpuMs: 1000, seconds: 2 });
    expect(table).toContain("| lcm_grep_words (words only) | 0.900 | 0.800 | 1.000 |");
    expect(table).toContain("| lcm_grep_raw (words only, question as asked) | 0.700 | 0.400 | 1.000 |");
    expect(table).toContain("| hybrid_raw | 0.750 | 0.500 | 1.000 |");
  });

  it("puts each conversation's word recall (content words, question as asked) beside its hybrid figures", () => {
    const q = (h: number) => ({ category: 1, at10: { semantic_raw: 0, hybrid_words: h, hybrid_raw: h } });
    const runs = [
      { id: "conv-a", degraded: 0, questions: [q(1), q(0)] },
      { id: "conv-b", degraded: 0, questions: [q(1)] },
    ];
    const rows = hybridByConversation(runs, new Map([["conv-a", { words: [1, 1], raw: [1, 0] }], ["conv-b", { words: [0], raw: [1] }]]));
    expect(rows).toEqual([
      { id: "conv-a", questions: 2, words: 1, raw: 0.5, methods: { semantic_raw: 0, hybrid_words: 0.5, hybrid_raw: 0.5 } },
      { id: "conv-b", questions: 1, words: 0, raw: 1, methods: { semantic_raw: 0, hybrid_words: 1, hybrid_raw: 1 } },
    ]);
    expect(renderHybridByConversation(rows)).toContain("| conv-a | 2 | 1.000 | 0.500 | 0.000 | 0.500 | 0.500 |");
  });

  it.skipIf(!existsSync(locomoFile))("scores a LoCoMo slice through a loopback /v1/embeddings server and LCM's provider path", async () => {
    const conv = readLocomo(locomoFile)[0]!;
    const turns = conv.turns.slice(0, 60);
    const known = new Set(turns.map((t) => t.diaId));
    const slice = { ...conv, turns, questions: conv.questions.filter((q) => q.evidence.every((e) => known.has(e))).slice(0, 6) };
    const server = await startEmbedServer(toyModel);
    try {
      const run = await evalHybridConversation(slice, server.baseUrl);
      expect(run.questions).toHaveLength(slice.questions.length);
      expect(run.degraded).toBe(0);
      expect(server.stats.texts).toBeGreaterThanOrEqual(60);
      for (const q of run.questions) for (const v of Object.values(q.at10)) expect(v).toBeGreaterThanOrEqual(0);
      expect(run.questions.some((q) => q.at10.hybrid_words > 0)).toBe(true);
    } finally {
      await server.close();
    }
  });

  it.skipIf(!existsSync(locomoFile))("records both lists hybrid fuses, per question, 20 deep, with the LoCoMo turn of each message hit", async () => {
    const conv = readLocomo(locomoFile)[0]!;
    const turns = conv.turns.slice(0, 60);
    const known = new Set(turns.map((t) => t.diaId));
    const slice = { ...conv, turns, questions: conv.questions.filter((q) => q.evidence.every((e) => known.has(e))).slice(0, 3) };
    const server = await startEmbedServer(toyModel);
    try {
      const lists = await conversationLists(slice, server.baseUrl);
      expect(lists.map((l) => l.question)).toEqual(slice.questions.map((q) => q.question));
      for (const l of lists) {
        for (const form of [l.raw, l.content]) {
          if (!form) continue;
          expect(form.words.length).toBeLessThanOrEqual(20);
          expect(form.vectors.length).toBeGreaterThan(0);
          expect(form.vectors.length).toBeLessThanOrEqual(20);
          expect(form.words10.length).toBeLessThanOrEqual(10);
          for (const h of [...form.words, ...form.vectors]) if (h.dia !== null) expect(known.has(h.dia)).toBe(true);
        }
      }
    } finally {
      await server.close();
    }
  });
});
