import { CODING_ENGINES, type CodingEngine, type Counts, type SessionCodingRun } from "./coding.js";
import { FACT_KINDS } from "./facts.js";
import { meanOf, type ConversationRun } from "./locomo.js";
import { mean, round3 } from "./metrics.js";

export const CATEGORY_NAMES: Record<number, string> = { 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial" };
export const RETRIEVAL_METHODS = ["bm25_floor", "lcm_grep_words", "lcm_grep_words_expanded", "lcm_grep_raw", "lcm_grep_raw_expanded", "recency"] as const;
export const CONTEXTS = ["lcm", "recency_lcm_size", "compressor", "recency_compressor_size"] as const;

export interface LocomoSummary {
  conversations: number;
  questions: number;
  compactions: { lcm: number; compressor: number };
  finalTokens: { lcm: number; compressor: number };
  expandedHit: { count: number; meanMessages: number; maxMessages: number };
  recall: Record<string, Record<string, { at5: number; at10: number; n: number }>>;
  held: Record<string, number>;
}

export function summarizeLocomo(runs: readonly ConversationRun[]): LocomoSummary {
  const categories = [...new Set(runs.flatMap((r) => r.questions.map((q) => q.category)))].sort((a, b) => a - b);
  const recall: LocomoSummary["recall"] = {};
  for (const method of RETRIEVAL_METHODS) {
    const row: Record<string, { at5: number; at10: number; n: number }> = {};
    const cell = (filter: (c: number) => boolean) => ({
      at5: round3(meanOf(runs, (q) => q.recall[method]!.at5, (q) => filter(q.category))),
      at10: round3(meanOf(runs, (q) => q.recall[method]!.at10, (q) => filter(q.category))),
      n: runs.reduce((n, r) => n + r.questions.filter((q) => filter(q.category)).length, 0),
    });
    row.all = cell(() => true);
    for (const c of categories) row[String(c)] = cell((x) => x === c);
    recall[method] = row;
  }
  const sizes = runs.flatMap((r) => r.expandedSizes);
  return {
    conversations: runs.length,
    questions: runs.reduce((n, r) => n + r.questions.length, 0),
    compactions: { lcm: runs.reduce((n, r) => n + r.compactions.lcm, 0), compressor: runs.reduce((n, r) => n + r.compactions.compressor, 0) },
    finalTokens: { lcm: Math.round(mean(runs.map((r) => r.finalTokens.lcm))), compressor: Math.round(mean(runs.map((r) => r.finalTokens.compressor))) },
    expandedHit: { count: sizes.length, meanMessages: round3(mean(sizes)), maxMessages: sizes.length ? Math.max(...sizes) : 0 },
    recall,
    held: Object.fromEntries(CONTEXTS.map((c) => [c, round3(meanOf(runs, (q) => q.held[c]!))])),
  };
}

type EngineName = CodingEngine;
export interface CodingSummary {
  sessions: number;
  engines: Record<EngineName, {
    compactions: number;
    nextRequest: Record<string, number>;
    truncation: Record<string, number>;
    ratio: Record<string, number | null>;
    grep?: Record<string, number>;
    facts: Record<string, number>;
    task: { requests: number; verbatim: number; verbatimOrRetrievable: number };
  }>;
}

const share = (c: { facts: number; present: number }) => (c.facts ? round3(c.present / c.facts) : 0);

function sumCounts(list: readonly Counts[]): Counts {
  const out = Object.fromEntries(FACT_KINDS.map((k) => [k, { facts: 0, present: 0 }])) as Counts;
  for (const c of list) for (const k of FACT_KINDS) { out[k].facts += c[k].facts; out[k].present += c[k].present; }
  return out;
}
const withAll = (c: Counts) => ({ ...c, all: FACT_KINDS.reduce((a, k) => ({ facts: a.facts + c[k].facts, present: a.present + c[k].present }), { facts: 0, present: 0 }) });

export function summarizeCoding(runs: readonly SessionCodingRun[]): CodingSummary {
  const engines = {} as CodingSummary["engines"];
  for (const name of CODING_ENGINES) {
    const figs = runs.map((r) => r.engines[name]);
    const next = withAll(sumCounts(figs.map((f) => f.nextRequest)));
    const trunc = withAll(sumCounts(figs.map((f) => f.truncation)));
    const keys = [...FACT_KINDS, "all"] as const;
    const grepCounts = figs.every((f) => f.grep) ? withAll(sumCounts(figs.map((f) => f.grep!))) : null;
    engines[name] = {
      compactions: figs.reduce((n, f) => n + f.compactions, 0),
      facts: Object.fromEntries(keys.map((k) => [k, next[k].facts])),
      nextRequest: Object.fromEntries(keys.map((k) => [k, share(next[k])])),
      truncation: Object.fromEntries(keys.map((k) => [k, share(trunc[k])])),
      ratio: Object.fromEntries(keys.map((k) => [k, trunc[k].present ? round3(next[k].present / trunc[k].present) : null])),
      ...(grepCounts ? { grep: Object.fromEntries(keys.map((k) => [k, share(grepCounts[k])])) } : {}),
      task: figs.reduce((a, f) => ({ requests: a.requests + f.task.requests, verbatim: a.verbatim + f.task.verbatim, verbatimOrRetrievable: a.verbatimOrRetrievable + f.task.verbatimOrRetrievable }), { requests: 0, verbatim: 0, verbatimOrRetrievable: 0 }),
    };
  }
  return { sessions: runs.length, engines };
}

const f3 = (x: number | null | undefined) => (x === null || x === undefined ? "–" : x.toFixed(2));

/** Markdown tables (what stdout and the README show). */
export function renderTables(locomo: LocomoSummary | null, coding: CodingSummary | null): string {
  const out: string[] = [];
  if (locomo) {
    const cats = Object.keys(locomo.recall.bm25_floor!).filter((c) => c !== "all");
    out.push(`LoCoMo: ${locomo.conversations} conversations, ${locomo.questions} questions with evidence, 8k window; compactions lcm ${locomo.compactions.lcm}, compressor ${locomo.compactions.compressor}`);
    out.push("");
    out.push(`| evidence recall@5 / @10 | all | ${cats.map((c) => `${c} ${CATEGORY_NAMES[Number(c)] ?? ""} (${locomo.recall.bm25_floor![c]!.n})`).join(" | ")} |`);
    out.push(`| --- | --- | ${cats.map(() => "---").join(" | ")} |`);
    for (const m of RETRIEVAL_METHODS) {
      const row = locomo.recall[m]!;
      out.push(`| ${m} | ${f3(row.all!.at5)} / ${f3(row.all!.at10)} | ${cats.map((c) => `${f3(row[c]!.at5)} / ${f3(row[c]!.at10)}`).join(" | ")} |`);
    }
    out.push("");
    out.push(`An expanded summary hit stood for ${locomo.expandedHit.meanMessages} messages on average (max ${locomo.expandedHit.maxMessages}, ${locomo.expandedHit.count} expanded hits).`);
    out.push("");
    out.push(`| final context (mean tokens lcm ${locomo.finalTokens.lcm}, compressor ${locomo.finalTokens.compressor}) | share of evidence held |`);
    out.push("| --- | --- |");
    for (const c of CONTEXTS) out.push(`| ${c} | ${f3(locomo.held[c])} |`);
    out.push("");
  }
  if (coding) {
    out.push(`Coding sessions: ${coding.sessions} sessions, 16k window; facts of compacted regions present in the next request (truncation to the same size; ratio)`);
    out.push("");
    const keys = [...FACT_KINDS, "all"];
    out.push(`| engine | compactions | ${keys.join(" | ")} | task kept verbatim / or one grep away |`);
    out.push(`| --- | --- | ${keys.map(() => "---").join(" | ")} | --- |`);
    for (const [name, e] of Object.entries(coding.engines)) {
      const t = e.task;
      const task = t.requests ? `${f3(t.verbatim / t.requests)} / ${f3(t.verbatimOrRetrievable / t.requests)} of ${t.requests}` : "–";
      out.push(`| ${name} | ${e.compactions} | ${keys.map((k) => `${f3(e.nextRequest[k])} (${f3(e.truncation[k])}; ${e.ratio[k] === null ? "–" : e.ratio[k]!.toFixed(2) + "×"}) n=${e.facts[k]}`).join(" | ")} | ${task} |`);
    }
    const g = coding.engines.lcm.grep;
    if (g) out.push(`| lcm_grep finds again | | ${keys.map((k) => f3(g[k])).join(" | ")} | |`);
    out.push("");
  }
  return out.join("\n");
}
