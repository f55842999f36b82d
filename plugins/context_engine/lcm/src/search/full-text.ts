import type { LcmSearchStore, ScoredRow, SearchFilter } from "../store/search-types.js";
import { encodeCursor, type CursorState } from "./cursor.js";
import { toHits, type Candidate } from "./hits.js";
import { ftsExpression, parseQuery, quote, termExpression, trigramParts, type ParsedQuery } from "./query.js";
import { termMatcher } from "./snippet.js";
import { OwnScores, rankWithNeighbours } from "./neighbours.js";
import { exhaustedTerms, unfetchedBound } from "./exhausted-terms.js";
import { expansionTerms } from "./feedback.js";
import { fuseRanked, onScale } from "./fusion.js";
import { scoreSummaries } from "./summary-score.js";
import { favourNamedSpeaker } from "./speaker.js";
import { discountAskedOnly } from "./question-turns.js";
import { queryDates, type DateWindow } from "./query-dates.js";
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
  /** Set when a bound kept the ranking from being proven complete. */
  incomplete?: boolean;
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
  if (/[\u0000-\u001f\u007f]/.test(q.query.replace(/[\t\n\r]/g, ""))) ctx.notes.push("control characters (such as NUL) in the query were read as spaces");
  if (parsed.dropped.length) ctx.notes.push(`ignored common words: ${parsed.dropped.join(", ")} (quote a word to search for it)`);
  const scope = q.scope ?? "both";
  const recency = (q.sort ?? "relevance") === "recency";
  const offset = cursor?.o ?? 0;
  const need = offset + ctx.limit + 1;
  let complete = true;
  const candidates: Candidate[] = [];

  if (scope !== "summaries") {
    const rows = parsed.hasCjk ? await cjkMessages(ctx, parsed, need) : recency ? await ctx.search.newestMessages(ftsExpression(parsed), ctx.filter, { limit: need, offset: 0 }) : await withDates(ctx, parsed, need);
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
  const listed = scope === "both" && !parsed.hasCjk ? await withoutRedundantSummaries(ctx, candidates, parsed, need) : candidates;
  const page = listed.slice(offset, offset + ctx.limit);
  const more = listed.length > offset + ctx.limit;
  if (ctx.incomplete) complete = false;
  return {
    mode: "full_text",
    hits: await toHits(ctx.search, page, { matcher: termMatcher(parsed.raw), snippetChars: q.snippetChars, scored: !recency }),
    nextCursor: more ? encodeCursor({ q: ctx.key, o: offset + ctx.limit }) : null,
    complete,
    notes: ctx.notes,
  };
}

/** Default weight of the best neighbour at distance 1; distance 2 counts half of it (see neighbours.ts). */
export const DEFAULT_NEIGHBOUR_WEIGHT = 0.5;
/**
 * A message right after a turn that asks a question takes that turn's words at this multiple of the
 * neighbour weight (1.0 at the default 0.5: the answer counts as saying the question's words).
 */
export const ANSWER_FACTOR = 2;
/** Rows fetched at most to prove the top of a neighbour-scored ranking; past it the result says so. */
export const NEIGHBOUR_FETCH_CAP = 5_000;

/**
 * The `need` best messages. Own BM25 comes from the index, best first; with
 * neighbour context and a recency boost (score × (1 + w·r), r in [0, 1] by
 * age within the scope) rows are fetched in growing batches until no
 * unfetched row could still beat the page: an unfetched row and its unfetched
 * neighbours score at most the last fetched score s, so it scores at most
 * s × (1 + Σ neighbour weights) × (1 + w); a row next to a fetched one is a
 * candidate already.
 */
/** How a query's messages are scored: the recency boost w, neighbour weights by distance, and an answer's weight. */
function scoreShape(ctx: FullTextContext, parsed: ParsedQuery): { w: number; weights: number[]; answerWeight: number } {
  const w = Math.max(0, Math.min(1, ctx.q.recencyBoost ?? 0));
  const nw = Math.max(0, Math.min(1, ctx.q.neighbourWeight ?? DEFAULT_NEIGHBOUR_WEIGHT));
  // With one term a neighbour can lend no word the message lacks: neighbours cannot change the order.
  const weights = nw > 0 && parsed.terms.length > 1 ? [nw, nw / 2] : [];
  return { w, weights, answerWeight: ANSWER_FACTOR * nw };
}

/** score × (1 + w·r), r in [0, 1] by age within the scope; 1 without a boost. */
async function recencyBoost(ctx: FullTextContext, w: number): Promise<(t: number) => number> {
  const span = w > 0 ? await ctx.search.timeSpan(ctx.filter.conversationId) : null;
  return (t: number) => (span ? 1 + w * Math.max(0, Math.min(1, (t - span.first) / Math.max(1, span.last - span.first))) : 1);
}

/** @internal Exported for the exactness test. */
export async function topMessages(ctx: FullTextContext, parsed: ParsedQuery, need: number): Promise<ScoredRow[]> {
  const expression = ftsExpression(parsed);
  const { w, weights, answerWeight } = scoreShape(ctx, parsed);
  if (w === 0 && weights.length === 0) return await ctx.search.rankMessages(expression, ctx.filter, { limit: need, offset: 0 });
  const boost = await recencyBoost(ctx, w);
  const own = new OwnScores(ctx.search, expression);
  const fetched: ScoredRow[] = [];
  // An unfetched row gains at most the largest weight at each distance (an answer's w_1 is answerWeight).
  const extraWeight = weights.reduce((a, b, d) => a + (d === 0 ? Math.max(b, answerWeight) : b), 0);
  const termExpressions = parsed.terms.map(termExpression);
  let batch = Math.max(50, need * 4);
  for (;;) {
    const got = await ctx.search.rankMessages(expression, ctx.filter, { limit: batch, offset: fetched.length });
    fetched.push(...got);
    const ranked = await rankWithNeighbours(ctx.search, ctx.filter, fetched, own, { weights, answerWeight, boost, termExpressions });
    if (got.length < batch) return ranked.slice(0, need);
    const kth = ranked[need - 1]?.score ?? -Infinity;
    const last = got[got.length - 1]!.score;
    if (last * (1 + extraWeight) * (1 + w) <= kth) return ranked.slice(0, need);
    const exhausted = await exhaustedTerms(ctx.search, ctx.filter, termExpressions, new Set(fetched.map((r) => r.rowid)));
    if (unfetchedBound(last, extraWeight, exhausted) * (1 + w) <= kth) return ranked.slice(0, need);
    if (fetched.length >= NEIGHBOUR_FETCH_CAP) {
      ctx.notes.push(`many matches: neighbour context was scored around the best ${fetched.length} by their own words`);
      ctx.incomplete = true;
      return ranked.slice(0, need);
    }
    // Every batch makes FTS5 score all matches again: after the first, fetch up to the cap at once.
    batch = NEIGHBOUR_FETCH_CAP - fetched.length;
  }
}

/** First-round messages a feedback round reorders (bounds its extra work: one more ranking, a few document-frequency lookups). */
export const FEEDBACK_POOL = 50;
/** RRF weights of the first round and the feedback round: the question's own words lead. */
export const FEEDBACK_WEIGHTS = { first: 2, second: 1 } as const;

/**
 * Relevance-ranked messages with one round of pseudo-relevance feedback
 * (feedback.ts): the best first-round messages (a named speaker's own turns
 * favoured, speaker.ts; turns that only ask about the query's words
 * discounted, question-turns.ts) lend their rarest words to a
 * second query, and the two rankings (the second with the same discount for
 * its own words) are fused (fusion.ts, weighted toward the first). Feedback only reorders what the question's own words found: a
 * message holding none of them is never a hit (an agent searching for an
 * identifier gets only messages that hold it). The fused list keeps the first
 * round's score scale, so summaries still merge by score.
 */
async function rankedMessages(ctx: FullTextContext, parsed: ParsedQuery, need: number): Promise<ScoredRow[]> {
  const pool = Math.max(need, FEEDBACK_POOL);
  // One word names one thing: its ranking is BM25's own (an agent looking up an identifier gets the messages that
  // hold it most), and feedback words would only drift from it. Two or more words are a question to round out.
  if (parsed.terms.length < 2) return await topMessages(ctx, parsed, need);
  const found = await topMessages(ctx, parsed, pool);
  if (found.length < 2) return found.slice(0, need);
  const bodies = await ctx.search.messageBodies(found.map((r) => r.rowid));
  const first = discountAskedOnly(favourNamedSpeaker(found, bodies, parsed.raw), bodies, parsed.raw);
  const expansion = await expansionTerms(ctx.search, first.map((r) => ({ body: bodies.get(r.rowid) ?? "", score: r.score })), parsed.raw);
  // The speaker and question factors reorder; scores stay on the store's scale (summaries merge by score).
  if (!expansion.length) return onScale(first, found).slice(0, need);
  const quoted = expansion.map(quote);
  const second: ParsedQuery = { ...parsed, groups: [...parsed.groups, ...quoted.map((t) => [t])], terms: [...parsed.terms, ...quoted], raw: [...parsed.raw, ...expansion] };
  const again = discountAskedOnly(await rankPool(ctx, second, first), bodies, second.raw);
  const fused = fuseRanked([
    { rows: first, weight: FEEDBACK_WEIGHTS.first },
    { rows: again, weight: FEEDBACK_WEIGHTS.second },
  ]);
  const matched = new Set(first.map((r) => r.rowid));
  return onScale(fused.filter((r) => matched.has(r.rowid)), found).slice(0, need);
}

/**
 * The feedback query's ranking of the first round's pool, scored as
 * `topMessages` scores (own words, neighbours, recency): only pool rows can be
 * hits of the fused list, so the rest of the conversation is never ranked. A
 * corpus-wide second ranking cost seconds for a common word at 100k messages
 * (every match scored with its neighbours) and changed nothing but the ranks.
 */
async function rankPool(ctx: FullTextContext, parsed: ParsedQuery, pool: readonly ScoredRow[]): Promise<ScoredRow[]> {
  const own = new OwnScores(ctx.search, ftsExpression(parsed));
  await own.ensure(pool.map((r) => r.rowid));
  const rows = pool.flatMap((r) => (own.get(r.rowid) > 0 ? [{ rowid: r.rowid, score: own.get(r.rowid), createdAt: r.createdAt }] : []));
  const { w, weights, answerWeight } = scoreShape(ctx, parsed);
  const boost = await recencyBoost(ctx, w);
  const inPool = new Set(pool.map((r) => r.rowid));
  const ranked =
    weights.length === 0
      ? rows.map((r) => ({ ...r, score: r.score * boost(r.createdAt) })).sort((a, b) => b.score - a.score || b.createdAt - a.createdAt || b.rowid - a.rowid)
      : await rankWithNeighbours(ctx.search, ctx.filter, rows, own, { weights, answerWeight, boost, termExpressions: parsed.terms.map(termExpression) });
  return ranked.filter((r) => inPool.has(r.rowid));
}

/** RRF weight of the ranking among messages said on a date the query names, beside the words' (FEEDBACK_WEIGHTS.first): equal, the date is as much the question as its words. */
export const DATE_WEIGHT = 2;

/**
 * A query naming a date ("in July 2023", "on 13 October 2023", query-dates.ts) is also
 * about when things were said: the question's words are ranked a second time among the
 * messages said in that window (the stored time: the host's `messageTimes`, else ingest
 * time), and the two rankings are fused with equal weight. Like feedback it only
 * reorders: every row of either list matches the query's own words.
 */
async function withDates(ctx: FullTextContext, parsed: ParsedQuery, need: number): Promise<ScoredRow[]> {
  const windows = queryDates(ctx.q.query);
  if (!windows.length) return await rankedMessages(ctx, parsed, need);
  const pool = Math.max(need, FEEDBACK_POOL);
  const words = await rankedMessages(ctx, parsed, pool);
  const dated = new Map<number, ScoredRow>();
  for (const w of windows) {
    const filter = narrowed(ctx.filter, w);
    if (!filter) continue;
    for (const r of await topMessages({ ...ctx, filter }, parsed, pool)) if ((dated.get(r.rowid)?.score ?? -Infinity) < r.score) dated.set(r.rowid, r);
  }
  ctx.notes.push(`dates in the query also rank the messages said then: ${windows.map(describeWindow).join(", ")} (UTC, widened by a day on each side for time zones)`);
  if (!dated.size) return words.slice(0, need);
  const datedList = [...dated.values()].sort((a, b) => b.score - a.score || b.createdAt - a.createdAt || b.rowid - a.rowid);
  const fused = fuseRanked([
    { rows: words, weight: FEEDBACK_WEIGHTS.first },
    { rows: datedList, weight: DATE_WEIGHT },
  ]);
  return onScale(fused, [...words, ...datedList]).slice(0, need);
}

/** The search filter narrowed to a date window; null when nothing of the window is left. */
function narrowed(filter: SearchFilter, w: DateWindow): SearchFilter | null {
  const since = Math.max(filter.since ?? -Infinity, w.since);
  const before = Math.min(filter.before ?? Infinity, w.before);
  return since < before ? { ...filter, since, before } : null;
}

function describeWindow(w: DateWindow): string {
  const day = (t: number) => new Date(t).toISOString().slice(0, 10);
  return `${day(w.since)}..${day(w.before - 1)}`;
}

/**
 * With messages and summaries together, a summary is left out when its own
 * source messages hold every query word it holds: those messages rank on
 * their own (verbatim, each with coveredBy naming the summary), while the
 * summary's words, pooled from many messages, would outrank each of them
 * without adding anything. A summary stays when it holds a query word none of
 * its sources do (it says it in other words, or its sources were pruned).
 * Only the first `need` entries are decided.
 */
async function withoutRedundantSummaries(ctx: FullTextContext, sorted: readonly Candidate[], parsed: ParsedQuery, need: number): Promise<Candidate[]> {
  const out: Candidate[] = [];
  for (const c of sorted) {
    if (out.length >= need) break;
    if (c.type === "summary" && !(await summaryAloneForSomeTerm(ctx, c.rowid, parsed))) continue;
    out.push(c);
  }
  return out;
}

async function summaryAloneForSomeTerm(ctx: FullTextContext, summaryRowid: number, parsed: ParsedQuery): Promise<boolean> {
  for (const t of parsed.terms) if (await ctx.search.summaryAlone(summaryRowid, termExpression(t))) return true;
  return false;
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

