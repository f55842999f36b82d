import type { LcmSearchStore, SearchFilter } from "../store/search-types.js";
import { encodeCursor, type CursorState } from "./cursor.js";
import { snippetAround, toHits, type Candidate } from "./hits.js";
import { compileSafeRegex } from "./regex-engine.js";
import { requiredLiteral, requiredWord } from "./regex-literal.js";
import { quote } from "./query.js";
import type { SearchQuery, SearchResult } from "./types.js";

/**
 * Characters of one message (or summary) the regex sees. RE2 is linear in its
 * input, so this bounds the cost of any single match; the rest of a longer
 * message is not searched by regex (full-text mode indexes all of it).
 */
export const REGEX_INPUT_CHARS = 100_000;
/** Default and largest time one regex call may take (checked after every message). */
export const REGEX_DEFAULT_BUDGET_MS = 250;
export const REGEX_MAX_BUDGET_MS = 5_000;
/** Message ids read per SQL window when no index narrows the scan: bounds each statement step. */
const SCAN_WINDOW = 2_000;

export interface RegexContext {
  search: LcmSearchStore;
  q: SearchQuery;
  filter: SearchFilter;
  limit: number;
  key: string;
  notes: string[];
}

/**
 * Regex mode: summaries first, then messages newest first. A whole word the
 * pattern requires narrows the messages through the full-text index; else a
 * literal it requires is tested in SQL before a row reaches RE2. The call stops
 * at its time budget or row cap and returns a cursor to continue.
 */
export function regexSearch(ctx: RegexContext, cursor: CursorState | null): SearchResult {
  const { search, q } = ctx;
  const ignoreCase = q.ignoreCase ?? true;
  const re = compileSafeRegex(q.query, ignoreCase);
  const scope = q.scope ?? "both";
  const budget = Math.max(10, Math.min(REGEX_MAX_BUDGET_MS, q.regexTimeBudgetMs ?? REGEX_DEFAULT_BUDGET_MS));
  const rowCap = Math.max(100, Math.min(5_000_000, q.regexRowCap ?? 200_000));
  const deadline = performance.now() + budget;
  const found: Candidate[] = [];
  let scanned = 0;
  let phase: "s" | "m" = cursor?.p ?? (scope === "messages" ? "m" : "s");
  const result = (next: CursorState | null): SearchResult => ({
    mode: "regex",
    hits: toHits(search, found, { matcher: null, snippetChars: q.snippetChars, scored: false }),
    nextCursor: next ? encodeCursor(next) : null,
    complete: next === null,
    scanned,
    notes: ctx.notes,
  });
  const stopped = (why: "time" | "rows") =>
    ctx.notes.push(
      `regex scan stopped after ${scanned} rows (${why === "time" ? `${budget} ms time bound` : "row cap"}); pass nextCursor to continue with older items`,
    );

  if (phase === "s") {
    let offset = cursor?.o ?? 0;
    for (;;) {
      const rows = search.summaryTexts(ctx.filter, offset, 200);
      for (const r of rows) {
        offset++;
        scanned++;
        const text = r.content.slice(0, REGEX_INPUT_CHARS);
        const m = re.find(text);
        if (m) found.push({ type: "summary", rowid: r.rowid, score: 0, createdAt: r.createdAt, snippet: snippetAround(text, m.index, m.length, q.snippetChars) });
        if (found.length >= ctx.limit) return result({ q: ctx.key, p: "s", o: offset });
        if (performance.now() > deadline) {
          stopped("time");
          return result({ q: ctx.key, p: "s", o: offset });
        }
      }
      if (rows.length < 200) break;
    }
    if (scope === "summaries") return result(null);
    phase = "m";
  }

  const word = requiredWord(q.query);
  const literalRaw = requiredLiteral(q.query);
  // SQL LIKE folds ASCII case only: a non-ASCII literal narrows only a case-sensitive search.
  const literal = literalRaw && (!ignoreCase || /^[\x20-\x7e]*$/.test(literalRaw)) ? literalRaw : null;
  if (word) ctx.notes.push(`narrowed by the index to messages containing the word "${word}"`);
  else if (literal) ctx.notes.push(`narrowed to messages containing "${literal}"`);
  const span = search.idSpan(ctx.filter.conversationId);
  let below = cursor?.p === "m" && cursor.id !== undefined ? cursor.id : span.hi + 1;
  while (below > span.lo) {
    const above = word ? span.lo - 1 : Math.max(span.lo - 1, below - 1 - SCAN_WINDOW);
    let last = above + 1;
    for (const r of search.scanMessages(ctx.filter, { word: word ? `body:(${quote(word)})` : null, literal }, { above, below }, REGEX_INPUT_CHARS)) {
      scanned++;
      last = r.pos;
      const m = re.find(r.body);
      if (m) found.push({ type: "message", rowid: r.id, score: 0, createdAt: r.createdAt, snippet: snippetAround(r.body, m.index, m.length, q.snippetChars) });
      const full = found.length >= ctx.limit;
      const late = performance.now() > deadline;
      if (full || late || scanned >= rowCap) {
        if (!full) stopped(late ? "time" : "rows");
        return result(r.pos > span.lo ? { q: ctx.key, p: "m", id: r.pos } : null);
      }
    }
    below = last;
    if (performance.now() > deadline && below > span.lo) {
      stopped("time");
      return result({ q: ctx.key, p: "m", id: below });
    }
  }
  return result(null);
}
