import type { LcmSearchStore, ScoredRow, SearchFilter } from "../store/search-types.js";
import { encodeCursor, type CursorState } from "./cursor.js";
import { toHits, type Candidate } from "./hits.js";
import { ftsExpression, parseQuery, trigramParts, type ParsedQuery } from "./query.js";
import { termMatcher } from "./snippet.js";
import { scoreSummaries } from "./summary-score.js";
import type { SearchQuery, SearchResult } from "./types.js";

/**
 * Summaries in scope ranked at once. Conversations hold far fewer summaries
 * than messages; past this many matches the result says it is incomplete.
 */
export const SUMMARY_CANDIDATES = 5_000;

export interface FullTextContext {
  search: LcmSearchStore;
  q: SearchQuery;
  filter: SearchFilter;
  limit: number;
  key: string;
  notes: string[];
}

/**
 * Full-text search: every match of the scope is ranked (FTS5's bm25 with ORDER
 * BY rank and a LIMIT of the page end, so the index does the work), summaries
 * join on the same scale, and the page is cut from the merged list.
 */
export async function fullTextSearch(ctx: FullTextContext, cursor: CursorState | null): Promise<SearchResult> {
  const { q } = ctx;
  const parsed = parseQuery(q.query);
  if (parsed.terms.length === 0) {
    throw new Error('query has no searchable words (use mode "regex" to search for punctuation or symbols)');
  }
  if (parsed.dropped.length) ctx.notes.push(`ignored common words: ${parsed.dropped.join(", ")} (quote a word to search for it)`);
  const scope = q.scope ?? "both";
  const recency = (q.sort ?? "relevance") === "recency";
  const offset = cursor?.o ?? 0;
  const need = offset + ctx.limit + 1;
  let complete = true;
  const candidates: Candidate[] = [];

  if (scope !== "summaries") {
    const rows = parsed.hasCjk ? await cjkMessages(ctx, parsed, need) : recency ? await ctx.search.newestMessages(ftsExpression(parsed), ctx.filter, { limit: need, offset: 0 }) : await topMessages(ctx, parsed, need);
    for (const r of rows) candidates.push({ type: "message", rowid: r.rowid, score: r.score, createdAt: r.createdAt });
  }
  if (scope !== "messages") {
    const r = await summaries(ctx, parsed, recency);
    candidates.push(...r.rows);
    if (r.capped) {
      complete = false;
      ctx.notes.push(`more than ${SUMMARY_CANDIDATES} summaries match: the best ${SUMMARY_CANDIDATES} by their own index were ranked; add words to narrow`);
    }
  }
  candidates.sort(recency ? (a, b) => b.createdAt - a.createdAt || b.rowid - a.rowid : (a, b) => b.score - a.score || b.createdAt - a.createdAt);
  const page = candidates.slice(offset, offset + ctx.limit);
  const more = candidates.length > offset + ctx.limit;
  return {
    mode: "full_text",
    hits: await toHits(ctx.search, page, { matcher: termMatcher(parsed.raw), snippetChars: q.snippetChars, scored: !recency }),
    nextCursor: more ? encodeCursor({ q: ctx.key, o: offset + ctx.limit }) : null,
    complete,
    notes: ctx.notes,
  };
}

/**
 * The `need` best messages. With a recency boost (score × (1 + w·r), r in
 * [0, 1] by age within the scope) rows are fetched in growing batches until
 * no unfetched row could still beat the page: unfetched rows score at most
 * the last raw score × (1 + w).
 */
async function topMessages(ctx: FullTextContext, parsed: ParsedQuery, need: number): Promise<ScoredRow[]> {
  const expression = ftsExpression(parsed);
  const w = Math.max(0, Math.min(1, ctx.q.recencyBoost ?? 0));
  if (w === 0) return await ctx.search.rankMessages(expression, ctx.filter, { limit: need, offset: 0 });
  const span = await ctx.search.timeSpan(ctx.filter.conversationId);
  const boost = (t: number) => 1 + (w * Math.max(0, Math.min(1, (t - span.first) / Math.max(1, span.last - span.first))));
  const rows: ScoredRow[] = [];
  let batch = Math.max(50, need * 4);
  for (;;) {
    const got = await ctx.search.rankMessages(expression, ctx.filter, { limit: batch, offset: rows.length });
    rows.push(...got.map((r) => ({ ...r, score: r.score * boost(r.createdAt) })));
    if (got.length < batch) break;
    const kth = [...rows].sort((a, b) => b.score - a.score)[need - 1]?.score ?? Infinity;
    if (got[got.length - 1]!.score * (1 + w) <= kth) break;
    batch *= 4;
  }
  return rows.sort((a, b) => b.score - a.score || b.createdAt - a.createdAt).slice(0, need);
}

async function cjkMessages(ctx: FullTextContext, parsed: ParsedQuery, need: number): Promise<ScoredRow[]> {
  const { match, like } = trigramParts(parsed);
  const rows = await ctx.search.cjkMessages(match, like, ctx.filter, (ctx.q.sort ?? "relevance") === "recency" ? need : Math.max(need, 1_000));
  if (!match) ctx.notes.push("one- and two-character CJK terms are matched by substring among the stored CJK messages");
  return rows;
}

async function summaries(ctx: FullTextContext, parsed: ParsedQuery, recency: boolean): Promise<{ rows: Candidate[]; capped: boolean }> {
  const expression = parsed.hasCjk ? null : ftsExpression(parsed);
  const rows = await ctx.search.matchingSummaries(expression, parsed.hasCjk ? parsed.raw : [], ctx.filter, SUMMARY_CANDIDATES + 1);
  const capped = rows.length > SUMMARY_CANDIDATES;
  const kept = rows.slice(0, SUMMARY_CANDIDATES);
  const scores = recency || parsed.hasCjk ? null : await scoreSummaries(ctx.search, parsed, kept, ctx.filter.conversationId);
  const w = Math.max(0, Math.min(1, ctx.q.recencyBoost ?? 0));
  const span = w > 0 ? await ctx.search.timeSpan(ctx.filter.conversationId) : null;
  return {
    rows: kept.map((r) => {
      let score = scores?.get(r.rowid) ?? 1;
      if (span) score *= 1 + w * Math.max(0, Math.min(1, (r.createdAt - span.first) / Math.max(1, span.last - span.first)));
      return { type: "summary", rowid: r.rowid, score, createdAt: r.createdAt };
    }),
    capped,
  };
}

