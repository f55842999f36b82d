import type { LcmSearchStore, ScanRow, SearchFilter } from "../store/search-types.js";
import { encodeCursor, type CursorState } from "./cursor.js";
import { snippetAround, toHits, type Candidate } from "./hits.js";
import { compileSafeRegex } from "./regex-engine.js";
import { requiredLiteral, requiredWord } from "./regex-literal.js";
import { matchBatch, warmRegexWorker } from "./regex-runner.js";
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
/** Rows and characters handed to the matching thread at once. */
const BATCH_ROWS = 256;
const BATCH_CHARS = 2_000_000;

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
export async function regexSearch(ctx: RegexContext, cursor: CursorState | null): Promise<SearchResult> {
  const { search, q } = ctx;
  const ignoreCase = q.ignoreCase ?? true;
  const re = compileSafeRegex(q.query, ignoreCase);
  const scope = q.scope ?? "both";
  const budget = Math.max(10, Math.min(REGEX_MAX_BUDGET_MS, q.regexTimeBudgetMs ?? REGEX_DEFAULT_BUDGET_MS));
  const rowCap = Math.max(100, Math.min(5_000_000, q.regexRowCap ?? 200_000));
  warmRegexWorker();
  const deadline = performance.now() + budget;
  const found: Candidate[] = [];
  let scanned = 0;
  let phase: "s" | "m" = cursor?.p ?? (scope === "messages" ? "m" : "s");
  const result = async (next: CursorState | null): Promise<SearchResult> => ({
    mode: "regex",
    hits: await toHits(search, found, { matcher: null, snippetChars: q.snippetChars, scored: false }),
    nextCursor: next ? encodeCursor(next) : null,
    complete: next === null,
    scanned,
    notes: ctx.notes,
  });
  const stopped = (why: "time" | "rows") =>
    ctx.notes.push(
      `regex scan stopped after ${scanned} rows (${why === "time" ? `${budget} ms time bound` : "row cap"}); pass nextCursor to continue with older items`,
    );
  /**
   * Match a batch on the worker. Returns how many rows of it count as examined (a row whose own
   * match outlasts a whole call's budget is skipped, with a note, so a cursor always advances).
   */
  const run = (rows: ReadonlyArray<{ text: string; hit: (m: { index: number; length: number }, text: string) => Candidate }>, fresh: boolean) => {
    // The first batch of a call gets half a budget of its own even if reading rows used the budget up,
    // so a call always examines something; a row that alone outlasts that is skipped below.
    const r = matchBatch(re.pattern, re.flags, rows.map((x) => x.text), fresh ? Math.max(deadline, performance.now() + budget / 2) : deadline);
    let done = r.done;
    for (let i = 0; i < r.done; i++) {
      const m = r.matches[i];
      if (!m) continue;
      found.push(rows[i]!.hit(m, rows[i]!.text));
      if (found.length >= ctx.limit) {
        done = i + 1; // the page is full: the rows after this one are examined again by the next page
        break;
      }
    }
    if (r.timedOut && r.done === 0 && fresh) {
      done = 1;
      ctx.notes.push("one item could not be matched within half the time bound on its own and was skipped (RE2 is linear, but a large pattern on a 100 kB message can still take that long)");
    }
    scanned += done;
    return { done: Math.min(done, rows.length), timedOut: r.timedOut && found.length < ctx.limit };
  };

  if (phase === "s") {
    let offset = cursor?.o ?? 0;
    for (;;) {
      const rows = await search.summaryTexts(ctx.filter, offset, BATCH_ROWS);
      const batch = rows.map((r) => ({
        text: r.content.slice(0, REGEX_INPUT_CHARS),
        hit: (m: { index: number; length: number }, text: string): Candidate => ({ type: "summary", rowid: r.rowid, score: 0, createdAt: r.createdAt, snippet: snippetAround(text, m.index, m.length, q.snippetChars) }),
      }));
      const r = run(batch, scanned === 0);
      // Resume after the last row examined; with a full page, after the row that filled it.
      offset += r.done;
      if (found.length >= ctx.limit) return await result({ q: ctx.key, p: "s", o: offset });
      if (r.timedOut || performance.now() > deadline) {
        stopped("time");
        return await result({ q: ctx.key, p: "s", o: offset });
      }
      if (rows.length < BATCH_ROWS) break;
    }
    if (scope === "summaries") return await result(null);
    phase = "m";
  }

  const word = requiredWord(q.query);
  const literalRaw = requiredLiteral(q.query);
  // SQL LIKE folds ASCII case only: a non-ASCII literal narrows only a case-sensitive search.
  const literal = literalRaw && (!ignoreCase || /^[\x20-\x7e]*$/.test(literalRaw)) ? literalRaw : null;
  if (word) ctx.notes.push(`narrowed by the index to messages containing the word "${word}"`);
  else if (literal) ctx.notes.push(`narrowed to messages containing "${literal}"`);
  const span = await search.idSpan(ctx.filter.conversationId);
  let below = cursor?.p === "m" && cursor.id !== undefined ? cursor.id : span.hi + 1;
  const narrow = { word: word ? `body:(${quote(word)})` : null, literal };
  while (below > span.lo) {
    const above = word ? span.lo - 1 : Math.max(span.lo - 1, below - 1 - SCAN_WINDOW);
    const pending: ScanRow[] = [];
    let chars = 0;
    let exhausted = true;
    for await (const r of await search.scanMessages(ctx.filter, narrow, { above, below }, REGEX_INPUT_CHARS)) {
      pending.push(r);
      chars += r.body.length;
      if (pending.length >= BATCH_ROWS || chars >= BATCH_CHARS || scanned + pending.length >= rowCap) {
        exhausted = false;
        break;
      }
    }
    const batch = pending.map((row) => ({
      text: row.body,
      hit: (m: { index: number; length: number }, text: string): Candidate => ({ type: "message", rowid: row.id, score: 0, createdAt: row.createdAt, snippet: snippetAround(text, m.index, m.length, q.snippetChars) }),
    }));
    const r = pending.length ? run(batch, scanned === 0) : { done: 0, timedOut: false };
    // Rows are newest first: continue strictly below the last one examined.
    if (r.done > 0) below = pending[r.done - 1]!.pos;
    else if (!r.timedOut) below = above + 1;
    if (found.length >= ctx.limit) return await result(below > span.lo ? { q: ctx.key, p: "m", id: below } : null);
    const late = r.timedOut || performance.now() > deadline;
    if (late || scanned >= rowCap) {
      if (below <= span.lo) return await result(null);
      stopped(late ? "time" : "rows");
      return await result({ q: ctx.key, p: "m", id: below });
    }
    if (exhausted) below = above + 1;
  }
  return await result(null);
}
