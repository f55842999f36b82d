import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ContextEngine } from "@context-engine/core";
import { LcmEngine } from "@context-engine/lcm";
import { z } from "zod";
import { resetVirtualClock, restoreRealClock } from "./clock.js";
import { replay } from "./driver.js";
import { USE_LITE_MODEL } from "./embed-server.js";
import { storedSeqs } from "./lcm-tools.js";
import type { LocomoConversation } from "./locomo-data.js";
import { mean, recallAt, round3 } from "./metrics.js";
import { contentWords } from "./text.js";
import { LOCOMO_WINDOW } from "./locomo.js";

/** The ways the hybrid step asks lcm_grep (words alone come from the main LoCoMo run: the same replay, the same ranking). */
export const HYBRID_METHODS = ["semantic_raw", "hybrid_words", "hybrid_raw"] as const;
export type HybridMethod = (typeof HYBRID_METHODS)[number];

export interface HybridQuestion {
  category: number;
  at10: Record<HybridMethod, number>;
}

export interface HybridRun {
  id: string;
  questions: HybridQuestion[];
  /** lcm_grep answers that said they fell back to words (provider failed or timed out). */
  degraded: number;
}

const Answer = z.looseObject({
  mode: z.string().optional(),
  hits: z.array(z.looseObject({ type: z.string(), seq: z.number().optional() })),
  notes: z.array(z.string()).optional(),
});

async function grep(engine: ContextEngine, sessionId: string, query: string, mode: "full_text" | "semantic"): Promise<{ seqs: Array<number | undefined>; degraded: boolean }> {
  const parsed = Answer.safeParse(JSON.parse(await engine.handleToolCall("lcm_grep", { query, limit: 10, mode }, { sessionId })));
  if (!parsed.success) return { seqs: [], degraded: false };
  return {
    seqs: parsed.data.hits.map((h) => (h.type === "message" ? h.seq : undefined)),
    degraded: (parsed.data.notes ?? []).some((n) => n.includes("ranked by words alone")),
  };
}

/**
 * Replay one conversation through LCM configured with the embedding endpoint at `baseUrl` (as a
 * user would configure it), wait for the background embedding, and score every question by
 * recall@10 of message hits: the vector ranking alone (the raw question), and the fused list with
 * the question's content words and with the raw question.
 */
export async function evalHybridConversation(conv: LocomoConversation, baseUrl: string): Promise<HybridRun> {
  resetVirtualClock();
  const dir = mkdtempSync(join(tmpdir(), "ce-eval-hybrid-"));
  const sessionId = `locomo-${conv.id}`;
  const embeddings = { base_url: baseUrl, model: USE_LITE_MODEL, batch_size: 64, timeout_ms: 120_000, query_timeout_ms: 60_000 };
  const lcm = new LcmEngine({ contextLength: LOCOMO_WINDOW, dataDir: dir, config: { prepare_in_background: false, embeddings } });
  try {
    const messages = conv.turns.map((t) => t.message);
    await replay({ engine: lcm, sessionId, messages, times: conv.turns.map((t) => t.saidAt) });
    await lcm.whenIdle(sessionId);
    const seqs = storedSeqs(messages);
    const diaBySeq = new Map(conv.turns.flatMap((t, i) => (seqs[i] === undefined ? [] : [[seqs[i]!, t.diaId] as const])));
    const ranked = (s: Array<number | undefined>) => s.map((seq) => (seq === undefined ? [] : [diaBySeq.get(seq) ?? ""]));
    let degraded = 0;
    const questions: HybridQuestion[] = [];
    for (const q of conv.questions) {
      const words = contentWords(q.question).join(" ");
      const semantic = await grep(lcm, sessionId, q.question, "semantic");
      const hybridRaw = await grep(lcm, sessionId, q.question, "full_text");
      const hybridWords = words ? await grep(lcm, sessionId, words, "full_text") : { seqs: [], degraded: false };
      degraded += [semantic, hybridRaw, hybridWords].filter((r) => r.degraded).length;
      questions.push({
        category: q.category,
        at10: {
          semantic_raw: recallAt(ranked(semantic.seqs), q.evidence, 10),
          hybrid_words: recallAt(ranked(hybridWords.seqs), q.evidence, 10),
          hybrid_raw: recallAt(ranked(hybridRaw.seqs), q.evidence, 10),
        },
      });
    }
    return { id: conv.id, questions, degraded };
  } finally {
    restoreRealClock();
    await lcm.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export type HybridSummary = Record<HybridMethod, Record<string, number>> & { degraded: number };

/** recall@10 per method, overall ("all") and per category. */
export function summarizeHybrid(runs: readonly HybridRun[]): HybridSummary {
  const qs = runs.flatMap((r) => r.questions);
  const categories = [...new Set(qs.map((q) => q.category))].sort((a, b) => a - b);
  const out = { degraded: runs.reduce((n, r) => n + r.degraded, 0) } as HybridSummary;
  for (const m of HYBRID_METHODS) {
    const row: Record<string, number> = { all: round3(mean(qs.map((q) => q.at10[m]))) };
    for (const c of categories) row[String(c)] = round3(mean(qs.filter((q) => q.category === c).map((q) => q.at10[m])));
    out[m] = row;
  }
  return out;
}

const CATEGORY_NAMES: Record<string, string> = { 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial" };

/** The main run's word rankings the hybrid methods are read against: the content words and the question as asked. */
export interface WordBaselines<T> {
  words: T;
  raw: T;
}

/** Markdown: words alone (the main run's lcm_grep_words and lcm_grep_raw), semantic and hybrid recall@10 by category. */
export function renderHybridTable(summary: HybridSummary, baselines: WordBaselines<Record<string, { at10: number }>>, server: { texts: number; cpuMs: number; seconds: number }): string {
  const cols = Object.keys(summary.hybrid_raw).filter((k) => k !== "all");
  const head = `| recall@10 (${USE_LITE_MODEL} via loopback /v1/embeddings) | all | ${cols.map((c) => CATEGORY_NAMES[c] ?? c).join(" | ")} |`;
  const sep = `|---|---|${cols.map(() => "---").join("|")}|`;
  const row = (name: string, r: (k: string) => number | undefined) => `| ${name} | ${["all", ...cols].map((k) => r(k)?.toFixed(3) ?? "–").join(" | ")} |`;
  return [
    "",
    "### Hybrid retrieval (optional step)",
    "",
    head,
    sep,
    row("lcm_grep_words (words only)", (k) => baselines.words[k]?.at10),
    row("lcm_grep_raw (words only, question as asked)", (k) => baselines.raw[k]?.at10),
    ...HYBRID_METHODS.map((m) => row(m, (k) => summary[m][k])),
    "",
    `${server.texts} texts embedded in ${(server.cpuMs / 1000).toFixed(0)} s CPU; step wall ${server.seconds} s; ${summary.degraded} answers fell back to words.`,
  ].join("\n");
}

/** One conversation's recall@10 ("all"): words alone from the main run (content words, raw question) beside each hybrid method. */
export interface HybridConversationRow {
  id: string;
  questions: number;
  words: number;
  raw: number;
  methods: Record<HybridMethod, number>;
}

/**
 * Per conversation, so a split into conversations a rule was chosen on and conversations held out can be read off
 * the same run. `baselines`: per conversation, the main run's lcm_grep_words and lcm_grep_raw recall@10 of each
 * question, in question order.
 */
export function hybridByConversation(runs: readonly HybridRun[], baselines: ReadonlyMap<string, WordBaselines<readonly number[]>>): HybridConversationRow[] {
  return runs.map((r) => {
    const methods = {} as Record<HybridMethod, number>;
    for (const m of HYBRID_METHODS) methods[m] = round3(mean(r.questions.map((q) => q.at10[m])));
    const base = baselines.get(r.id);
    return { id: r.id, questions: r.questions.length, words: round3(mean([...(base?.words ?? [])])), raw: round3(mean([...(base?.raw ?? [])])), methods };
  });
}

export function renderHybridByConversation(rows: readonly HybridConversationRow[]): string {
  return [
    "",
    "",
    `| recall@10 by conversation | questions | lcm_grep_words | lcm_grep_raw | ${HYBRID_METHODS.join(" | ")} |`,
    `|---|---|---|---|${HYBRID_METHODS.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.id} | ${r.questions} | ${r.words.toFixed(3)} | ${r.raw.toFixed(3)} | ${HYBRID_METHODS.map((m) => r.methods[m].toFixed(3)).join(" | ")} |`),
  ].join("\n");
}
