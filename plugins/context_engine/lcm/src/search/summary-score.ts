import type { LcmSearchStore, SummaryTextRow } from "../store/search-types.js";
import { termExpression, type ParsedQuery } from "./query.js";
import { termMatcher } from "./snippet.js";

/**
 * Summaries scored on the messages' BM25 scale, so one list can rank both.
 * FTS5's bm25() gives each index its own IDF (a word in every summary of a
 * conversation weighs nothing there, and a lot among its messages), so the
 * summary's score is recomputed with FTS5's formula from the message index's
 * statistics: N and each term's document frequency among messages; term
 * frequency from the summary text; length normalised against the mean summary.
 */
const K1 = 1.2;
const B = 0.75;

function idf(docs: number, df: number): number {
  const v = Math.log((docs - df + 0.5) / (df + 0.5));
  return v > 0 ? v : 1e-6; // as FTS5 does for words in more than half the documents
}

function countOf(matcher: RegExp | null, text: string): number {
  if (!matcher) return 0;
  matcher.lastIndex = 0;
  let n = 0;
  for (let m = matcher.exec(text); m && n < 1000; m = matcher.exec(text)) {
    if (m[0].length === 0) matcher.lastIndex++;
    else n++;
  }
  return n;
}

export async function scoreSummaries(search: LcmSearchStore, parsed: ParsedQuery, rows: readonly SummaryTextRow[], conversationId: number | null): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (!rows.length) return out;
  const docs = Math.max(1, (await search.messageCorpus()).docs);
  const weights: number[] = [];
  for (const t of parsed.terms) weights.push(idf(docs, await search.documentFrequency(termExpression(t))));
  const matchers = parsed.raw.map((r) => termMatcher([r]));
  const mean = Math.max(1, await search.summaryMeanChars(conversationId));
  for (const r of rows) {
    const norm = 1 - B + (B * r.content.length) / mean;
    let score = 0;
    matchers.forEach((m, i) => {
      const tf = countOf(m, r.content);
      if (tf > 0) score += weights[i]! * ((tf * (K1 + 1)) / (tf + K1 * norm));
    });
    out.set(r.rowid, score);
  }
  return out;
}
