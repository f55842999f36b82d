import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ContextCompressor } from "@context-engine/compressor";
import type { ContextEngine, Message } from "@context-engine/core";
import { defaultTokenCounter } from "@context-engine/core";
import { LcmEngine } from "@context-engine/lcm";
import { Bm25Floor } from "./bm25.js";
import { resetVirtualClock, restoreRealClock } from "./clock.js";
import { messageText, replay, type RequestRecord } from "./driver.js";
import { grep, storedSeqs, summarySpan } from "./lcm-tools.js";
import type { LocomoConversation } from "./locomo-data.js";
import { holdsTurn, indexContext, mean, newestWithin, recallAt } from "./metrics.js";
import { contentWords } from "./text.js";

export const LOCOMO_WINDOW = 8_192;

/** Per question: recall@5/@10 of every method, and the share of its evidence each final context holds. */
export interface QuestionFigures {
  conversation: string;
  category: number;
  recall: Record<string, { at5: number; at10: number }>;
  held: Record<string, number>;
}

export interface ConversationRun {
  id: string;
  turns: number;
  compactions: { lcm: number; compressor: number };
  finalTokens: { lcm: number; compressor: number };
  /** Messages one expanded summary hit stood for, per expanded hit. */
  expandedSizes: number[];
  questions: QuestionFigures[];
}

async function runEngine(engine: ContextEngine, sessionId: string, messages: readonly Message[], times: readonly (number | null)[]): Promise<{ last: RequestRecord | null; compactions: number }> {
  let last: RequestRecord | null = null;
  let compactions = 0;
  await replay({
    engine,
    sessionId,
    messages,
    times,
    onRequest: (r) => {
      last = r;
      if (r.compacted) compactions++;
    },
  });
  return { last, compactions };
}

/** Replay one conversation through lcm and compressor and score every question with evidence. */
export async function evalConversation(conv: LocomoConversation, window = LOCOMO_WINDOW): Promise<ConversationRun> {
  resetVirtualClock();
  const dir = mkdtempSync(join(tmpdir(), "ce-eval-locomo-"));
  const sessionId = `locomo-${conv.id}`;
  const lcm = new LcmEngine({ contextLength: window, dataDir: dir, config: { prepare_in_background: false } });
  const compressor = new ContextCompressor({ contextLength: window });
  try {
    const messages = conv.turns.map((t) => t.message);
    const times = conv.turns.map((t) => t.saidAt);
    const lcmRun = await runEngine(lcm, sessionId, messages, times);
    const compRun = await runEngine(compressor, sessionId, messages, times);
    const lcmContext = lcmRun.last?.messages ?? messages;
    const compContext = compRun.last?.messages ?? messages;
    const lcmTokens = defaultTokenCounter.countMessages(lcmContext);
    const compTokens = defaultTokenCounter.countMessages(compContext);
    const size = (t: (typeof conv.turns)[number]) => defaultTokenCounter.countMessage(t.message);
    const contexts = {
      lcm: indexContext(lcmContext.map(messageText)),
      compressor: indexContext(compContext.map(messageText)),
      recency_lcm_size: indexContext(newestWithin(conv.turns, size, lcmTokens).map((t) => t.content)),
      recency_compressor_size: indexContext(newestWithin(conv.turns, size, compTokens).map((t) => t.content)),
    };
    const floor = new Bm25Floor(conv.turns.map((t) => ({ id: t.diaId, text: t.content })));
    const textOf = new Map(conv.turns.map((t) => [t.diaId, t.content]));
    const spanCache = new Map<string, string[]>();
    const expandedSizes: number[] = [];
    const seqs = storedSeqs(messages);
    const diaBySeq = new Map(conv.turns.flatMap((t, i) => (seqs[i] === undefined ? [] : [[seqs[i]!, t.diaId] as const])));
    const diaOfSeq = (seq: number) => diaBySeq.get(seq);
    const recency = conv.turns.slice(-10).reverse().map((t) => [t.diaId]);

    const rankedHits = async (query: string, expand: boolean): Promise<string[][][]> => {
      const hits = await grep(lcm, sessionId, query, 10);
      const plain: string[][] = [];
      const expanded: string[][] = [];
      for (const h of hits) {
        if (h.type === "message") {
          const dia = h.seq !== undefined ? diaOfSeq(h.seq) : undefined;
          plain.push(dia ? [dia] : []);
          expanded.push(dia ? [dia] : []);
          continue;
        }
        plain.push([]);
        if (!expand) continue;
        let ids = spanCache.get(h.ref);
        if (!ids) {
          const span = await summarySpan(lcm, sessionId, h.ref);
          ids = [];
          if (span) for (let s = span[0]; s <= span[1]; s++) { const d = diaOfSeq(s); if (d) ids.push(d); }
          spanCache.set(h.ref, ids);
        }
        expandedSizes.push(ids.length);
        expanded.push(ids);
      }
      return [plain, expanded];
    };

    const questions: QuestionFigures[] = [];
    for (const q of conv.questions) {
      const words = contentWords(q.question);
      const recall: QuestionFigures["recall"] = {};
      const score = (name: string, ranked: ReadonlyArray<readonly string[]>) => {
        recall[name] = { at5: recallAt(ranked, q.evidence, 5), at10: recallAt(ranked, q.evidence, 10) };
      };
      const [wordsPlain, wordsExpanded] = words.length ? await rankedHits(words.join(" "), true) : [[], []];
      const [rawPlain, rawExpanded] = await rankedHits(q.question, true);
      score("lcm_grep_words", wordsPlain!);
      score("lcm_grep_words_expanded", wordsExpanded!);
      score("lcm_grep_raw", rawPlain!);
      score("lcm_grep_raw_expanded", rawExpanded!);
      score("bm25_floor", floor.search(words, 10).map((id) => [id]));
      score("recency", recency);
      const held: Record<string, number> = {};
      for (const [name, ctx] of Object.entries(contexts)) {
        held[name] = q.evidence.filter((e) => holdsTurn(textOf.get(e)!, ctx)).length / q.evidence.length;
      }
      questions.push({ conversation: conv.id, category: q.category, recall, held });
    }
    floor.close();
    return {
      id: conv.id,
      turns: conv.turns.length,
      compactions: { lcm: lcmRun.compactions, compressor: compRun.compactions },
      finalTokens: { lcm: lcmTokens, compressor: compTokens },
      expandedSizes,
      questions,
    };
  } finally {
    restoreRealClock();
    lcm.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function meanOf(runs: readonly ConversationRun[], pick: (q: QuestionFigures) => number, filter: (q: QuestionFigures) => boolean = () => true): number {
  return mean(runs.flatMap((r) => r.questions.filter(filter).map(pick)));
}
