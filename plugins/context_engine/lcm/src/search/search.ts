import { stmt } from "../store/statements.js";
import type { Role } from "@context-engine/core";
import { FLAG_CJK, FLAG_HAS_PARTS } from "../store/codec.js";
import type { SqliteLcmStore } from "../store/sqlite-store.js";
import { decodeCursor, encodeCursor, queryKey, type CursorState } from "./cursor.js";
import { ftsExpression, parseQuery, trigramParts, type ParsedQuery } from "./query.js";
import { compileSafeRegex } from "./regex-guard.js";
import { buildSnippet, termMatcher } from "./snippet.js";
import { requiredWord } from "./regex-literal.js";
import { bm25Scores, fastBody } from "./rank.js";
import type { SearchHit, SearchQuery, SearchResult } from "./types.js";

/** Relevance is ranked among at most this many newest matches per table: bounded cost at any history size. */
export const RELEVANCE_CANDIDATES = 250;
/** Document frequencies are extrapolated from at most this many of the newest matches. */
const DF_SAMPLE = 2_000;
const SUMMARY_CANDIDATES = 400;
const MAX_LIMIT = 100;

interface Candidate {
  type: "message" | "summary";
  rowid: number;
  score: number;
  createdAt: number;
  /** Snippet source: which index and expression produced it. */
  via: "fts" | "cjk" | "scan";
}

interface Ctx {
  store: SqliteLcmStore;
  q: SearchQuery;
  limit: number;
  ctag: string | null;
  roles: Set<Role> | null;
  notes: string[];
  sessionIds: Map<number, string>;
  /** Highlights query words in snippets (full-text mode). */
  matcher: RegExp | null;
}

/**
 * Search the stored history: messages (with tool calls and results) and
 * summaries. Never throws for bad input; errors come back as thrown `Error`s
 * only from invalid cursors or regexes, which the tool layer turns into JSON.
 */
export function searchHistory(store: SqliteLcmStore, q: SearchQuery): SearchResult {
  const limit = Math.max(1, Math.min(MAX_LIMIT, Math.floor(q.limit ?? 10)));
  const ctx: Ctx = {
    store,
    q,
    limit,
    ctag: q.conversationId == null ? null : `c${q.conversationId}`,
    roles: q.roles?.length ? new Set(q.roles) : null,
    notes: [],
    sessionIds: new Map(),
    matcher: null,
  };
  const key = queryKey([q.query, q.mode ?? "full_text", q.scope ?? "both", q.conversationId ?? null, q.roles ?? null, q.since ?? null, q.before ?? null, q.sort ?? "relevance", q.ignoreCase ?? true]);
  const cursor = q.cursor ? decodeCursor(q.cursor, key) : null;
  // Messages imported with deferred indexing become searchable before a search answers; a huge
  // backlog is indexed for at most two seconds here, and the result then says it is incomplete.
  const { remaining } = store.indexPending({ maxMs: 2000 });
  const result = (q.mode ?? "full_text") === "regex" ? regexSearch(ctx, key, cursor) : fullTextSearch(ctx, key, cursor);
  if (remaining > 0) {
    result.complete = false;
    result.notes.push(`${remaining} recently imported messages are still being indexed; repeat the search to include them`);
  }
  return result;
}

// ------------------------------------------------------------------ full text

function fullTextSearch(ctx: Ctx, key: string, cursor: CursorState | null): SearchResult {
  const { store, q } = ctx;
  const parsed = parseQuery(q.query);
  if (parsed.terms.length === 0) {
    throw new Error("query has no searchable words (use mode \"regex\" to search for punctuation or symbols)");
  }
  ctx.matcher = termMatcher(parsed.raw);
  const scope = q.scope ?? "both";
  const sort = q.sort ?? "relevance";
  const offset = cursor?.o ?? 0;
  const want = sort === "recency" ? offset + ctx.limit + 1 : RELEVANCE_CANDIDATES;
  let complete = true;
  let candidates: Candidate[] = [];
  let expr = { and: "", or: "" };
  let usedOr = false;

  if (scope !== "summaries") {
    if (parsed.hasCjk) {
      const r = cjkMessageCandidates(ctx, parsed, want);
      candidates.push(...r.rows);
      if (r.capped) complete = false;
    } else {
      expr = { and: ftsExpression(parsed, "AND", ctx.ctag), or: ftsExpression(parsed, "OR", ctx.ctag) };
      let r = ftsMessageCandidates(ctx, parsed, "AND", want, sort);
      if (r.rows.length === 0 && parsed.terms.length > 1) {
        r = ftsMessageCandidates(ctx, parsed, "OR", want, sort);
        usedOr = r.rows.length > 0;
        if (usedOr) ctx.notes.push("no message contains every word; showing messages with any of them");
      }
      candidates.push(...r.rows);
      if (r.capped) complete = false;
    }
  }
  if (scope !== "messages") {
    const r = summaryCandidates(ctx, parsed, usedOr);
    candidates.push(...r.rows);
    if (r.capped) complete = false;
  }
  if (!complete && sort === "relevance") {
    ctx.notes.push(`many matches: ranked among the newest ${RELEVANCE_CANDIDATES}; add words or use since/before to narrow`);
  }

  candidates =
    sort === "recency"
      ? candidates.sort((a, b) => b.createdAt - a.createdAt || b.rowid - a.rowid)
      : candidates.sort((a, b) => b.score - a.score || b.createdAt - a.createdAt);
  const page = candidates.slice(offset, offset + ctx.limit);
  const more = candidates.length > offset + ctx.limit;
  const hits = page.map((c) => toHit(ctx, c, parsed, usedOr ? expr.or : expr.and));
  return {
    mode: "full_text",
    hits,
    nextCursor: more ? encodeCursor({ q: key, o: offset + ctx.limit }) : null,
    complete: sort === "recency" ? true : complete,
    notes: ctx.notes,
  };
}

/**
 * The id range of the scoped conversation. Messages of one session are mostly
 * contiguous in id order, so bounding the full-text scan by it lets FTS5 skip
 * the other conversations' doclist segments entirely.
 */
function idRange(ctx: Ctx): { lo: number; hi: number } | null {
  if (ctx.q.conversationId == null) return null;
  const db = ctx.store.db;
  const lo = stmt(db, "SELECT id FROM messages WHERE conversation_id = ? ORDER BY seq LIMIT 1").get(ctx.q.conversationId) as { id: number } | undefined;
  const hi = stmt(db, "SELECT id FROM messages WHERE conversation_id = ? ORDER BY seq DESC LIMIT 1").get(ctx.q.conversationId) as { id: number } | undefined;
  return lo && hi ? { lo: Math.min(lo.id, hi.id), hi: Math.max(lo.id, hi.id) } : { lo: 1, hi: 0 };
}

function timeAndRoleSql(ctx: Ctx, alias: string, rowidColumn?: string): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  const range = rowidColumn ? idRange(ctx) : null;
  if (range && rowidColumn) {
    // ids grow with seq inside a conversation (every insert takes max(id) + 1), so this is exact.
    parts.push(`${rowidColumn} BETWEEN ? AND ?`);
    params.push(range.lo, range.hi);
  }
  if (ctx.q.since !== undefined) {
    parts.push(`${alias}.created_at >= ?`);
    params.push(ctx.q.since);
  }
  if (ctx.q.before !== undefined) {
    parts.push(`${alias}.created_at < ?`);
    params.push(ctx.q.before);
  }
  if (ctx.roles) {
    parts.push(`${alias}.role IN (${[...ctx.roles].map(() => "?").join(", ")})`);
    params.push(...ctx.roles);
  }
  return { sql: parts.length ? ` AND ${parts.join(" AND ")}` : "", params };
}

function ftsMessageCandidates(ctx: Ctx, parsed: ParsedQuery, op: "AND" | "OR", want: number, sort: string): { rows: Candidate[]; capped: boolean } {
  const expression = ftsExpression(parsed, op, ctx.ctag);
  const f = timeAndRoleSql(ctx, "m", "f.rowid");
  const sql = `SELECT f.rowid AS rowid, m.created_at AS t FROM messages_fts f JOIN messages m ON m.id = f.rowid
               WHERE messages_fts MATCH ?${f.sql} ORDER BY f.rowid DESC LIMIT ?`;
  const rows = stmt(ctx.store.db, sql).all(expression, ...f.params, want + 1) as Array<{ rowid: number; t: number }>;
  const capped = rows.length > want;
  const kept = rows.slice(0, want);
  let scores: Map<number, number> | null = null;
  if (sort !== "recency" && kept.length > 0) {
    // Document frequencies within the scope, estimated from the newest DF_SAMPLE matches (exact below that):
    // IDF is logarithmic, and an exact count would walk a common word's whole doclist.
    const db = ctx.store.db;
    const range =
      ctx.q.conversationId == null
        ? { lo: 1, hi: ((stmt(db, "SELECT max(id) AS m FROM messages").get() as { m: number | null }).m ?? 0) }
        : idRange(ctx) ?? { lo: 1, hi: 0 };
    const sampleSql = `SELECT count(*) AS n, min(rowid) AS m FROM (SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? AND rowid BETWEEN ? AND ? ORDER BY rowid DESC LIMIT ${DF_SAMPLE})`;
    const df = parsed.terms.map((term) => {
      const e = ftsExpression({ ...parsed, terms: [term], excluded: [] }, "AND", ctx.ctag);
      const r = stmt(db, sampleSql).get(e, range.lo, range.hi) as { n: number; m: number | null };
      if (r.n < DF_SAMPLE || r.m === null) return r.n;
      return Math.round((r.n * (range.hi - range.lo + 1)) / Math.max(1, range.hi - r.m + 1));
    });
    const docs =
      ctx.q.conversationId == null
        ? (stmt(db, "SELECT COALESCE(sum(message_count), 0) AS n FROM conversations").get() as { n: number }).n
        : (ctx.store.getConversation(ctx.q.conversationId)?.messageCount ?? kept.length);
    scores = bm25Scores({ store: ctx.store, rowids: kept.map((r) => r.rowid), terms: parsed.raw, df, docs });
  }
  return {
    rows: kept.map((r) => ({ type: "message", rowid: r.rowid, score: scores?.get(r.rowid) ?? 0, createdAt: r.t, via: "fts" })),
    capped,
  };
}

function cjkMessageCandidates(ctx: Ctx, parsed: ParsedQuery, want: number): { rows: Candidate[]; capped: boolean } {
  const { match, like } = trigramParts(parsed);
  const f = timeAndRoleSql(ctx, "m", match ? "f.rowid" : undefined);
  const conv = ctx.q.conversationId == null ? "" : " AND m.conversation_id = ?";
  const convParams = ctx.q.conversationId == null ? [] : [ctx.q.conversationId];
  if (match) {
    const likeSql = like.map(() => " AND instr(lower(f.body), lower(?)) > 0").join("");
    const sql = `SELECT f.rowid AS rowid, bm25(messages_cjk) AS r, m.created_at AS t FROM messages_cjk f JOIN messages m ON m.id = f.rowid
                 WHERE messages_cjk MATCH ?${conv}${f.sql}${likeSql} ORDER BY f.rowid DESC LIMIT ?`;
    const rows = stmt(ctx.store.db, sql).all(match, ...convParams, ...f.params, ...like, want + 1) as Array<{ rowid: number; r: number; t: number }>;
    return {
      rows: rows.slice(0, want).map((r) => ({ type: "message", rowid: r.rowid, score: -r.r, createdAt: r.t, via: "cjk" })),
      capped: rows.length > want,
    };
  }
  // Only one- or two-character terms: trigrams cannot index them; scan the CJK rows in scope, newest first, bounded.
  const sql = `SELECT m.id AS rowid, m.created_at AS t FROM messages m
               WHERE (m.flags & ${FLAG_CJK}) != 0${conv}${f.sql} ORDER BY ${ctx.q.conversationId == null ? "m.id" : "m.seq"} DESC`;
  const out: Candidate[] = [];
  const deadline = performance.now() + (ctx.q.regexTimeBudgetMs ?? 250);
  let scanned = 0;
  let capped = false;
  const needles = like.map((s) => s.toLowerCase());
  for (const r of stmt(ctx.store.db, sql).iterate(...convParams, ...f.params) as Iterable<{ rowid: number; t: number }>) {
    scanned++;
    const body = messageBody(ctx.store, r.rowid).toLowerCase();
    if (needles.every((n) => body.includes(n))) {
      out.push({ type: "message", rowid: r.rowid, score: needles.reduce((a, n) => a + countOf(body, n), 0), createdAt: r.t, via: "scan" });
      if (out.length > want) {
        capped = true;
        break;
      }
    }
    if ((scanned & 255) === 0 && performance.now() > deadline) {
      capped = true;
      ctx.notes.push(`short CJK terms are matched by scanning; stopped after ${scanned} rows (time cap)`);
      break;
    }
  }
  return { rows: out.slice(0, want), capped };
}

function countOf(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}

function summaryCandidates(ctx: Ctx, parsed: ParsedQuery, useOr: boolean): { rows: Candidate[]; capped: boolean } {
  const db = ctx.store.db;
  const params: unknown[] = [];
  let timeSql = "";
  if (ctx.q.since !== undefined) {
    timeSql += " AND s.latest_at >= ?";
    params.push(ctx.q.since);
  }
  if (ctx.q.before !== undefined) {
    timeSql += " AND s.earliest_at < ?";
    params.push(ctx.q.before);
  }
  if (parsed.hasCjk) {
    // Summaries are few per conversation; a substring test is exact for CJK.
    const conv = ctx.q.conversationId == null ? "" : " AND s.conversation_id = ?";
    const convParams = ctx.q.conversationId == null ? [] : [ctx.q.conversationId];
    const likeSql = parsed.raw.map(() => " AND instr(lower(s.content), lower(?)) > 0").join("");
    const rows = stmt(db, `SELECT s.rowid AS rowid, s.created_at AS t FROM summaries s WHERE 1${conv}${timeSql}${likeSql} ORDER BY s.rowid DESC LIMIT ?`)
      .all(...convParams, ...params, ...parsed.raw, SUMMARY_CANDIDATES + 1) as Array<{ rowid: number; t: number }>;
    return {
      rows: rows.slice(0, SUMMARY_CANDIDATES).map((r) => ({ type: "summary", rowid: r.rowid, score: 1, createdAt: r.t, via: "scan" })),
      capped: rows.length > SUMMARY_CANDIDATES,
    };
  }
  const run = (op: "AND" | "OR") =>
    stmt(db, 
        `SELECT f.rowid AS rowid, bm25(summaries_fts, 1.0, 0.0) AS r, s.created_at AS t FROM summaries_fts f JOIN summaries s ON s.rowid = f.rowid
         WHERE summaries_fts MATCH ?${timeSql} ORDER BY f.rowid DESC LIMIT ?`,
      )
      .all(ftsExpression(parsed, op, ctx.ctag), ...params, SUMMARY_CANDIDATES + 1) as Array<{ rowid: number; r: number; t: number }>;
  let rows = run(useOr ? "OR" : "AND");
  if (rows.length === 0 && !useOr && parsed.terms.length > 1) rows = run("OR");
  return {
    rows: rows.slice(0, SUMMARY_CANDIDATES).map((r) => ({ type: "summary", rowid: r.rowid, score: -r.r, createdAt: r.t, via: "fts" })),
    capped: rows.length > SUMMARY_CANDIDATES,
  };
}

// ------------------------------------------------------------------ regex

function regexSearch(ctx: Ctx, key: string, cursor: CursorState | null): SearchResult {
  const { store, q } = ctx;
  const re = compileSafeRegex(q.query, q.ignoreCase ?? true);
  const scope = q.scope ?? "both";
  const budget = Math.max(10, Math.min(5000, q.regexTimeBudgetMs ?? 250));
  const rowCap = Math.max(100, Math.min(5_000_000, q.regexRowCap ?? 200_000));
  const deadline = performance.now() + budget;
  const hits: SearchHit[] = [];
  let phase: "s" | "m" = cursor?.p ?? (scope === "messages" ? "m" : "s");
  let scanned = 0;
  const f = timeAndRoleSql(ctx, "m");
  const conv = q.conversationId == null ? "" : " AND m.conversation_id = ?";
  const convParams = q.conversationId == null ? [] : [q.conversationId];

  if (phase === "s") {
    const offset = cursor?.o ?? 0;
    const rows = stmt(store.db, `SELECT s.rowid AS rowid, s.content AS content, s.created_at AS t FROM summaries s WHERE 1${conv.replace("m.", "s.")} ORDER BY s.rowid DESC`)
      .all(...convParams) as Array<{ rowid: number; content: string; t: number }>;
    let matchedCount = 0;
    for (const r of rows) {
      scanned++;
      const m = re.exec(r.content);
      if (!m) continue;
      if (matchedCount++ < offset) continue;
      if (hits.length === ctx.limit) {
        return {
          mode: "regex",
          hits,
          nextCursor: encodeCursor({ q: key, p: "s", o: offset + ctx.limit }),
          complete: false,
          scanned,
          notes: ctx.notes,
        };
      }
      hits.push(toHit(ctx, { type: "summary", rowid: r.rowid, score: 0, createdAt: r.t, via: "scan" }, null, null, snippetAround(r.content, m.index, m[0].length, q.snippetChars)));
    }
    if (scope === "summaries") return { mode: "regex", hits, nextCursor: null, complete: true, scanned, notes: ctx.notes };
    phase = "m";
  }

  // With a whole word the regex requires, the full-text index narrows the scan to messages containing it.
  // Otherwise: scoped scans walk the (conversation_id, seq) index; global scans walk ids. Both newest first.
  const word = requiredWord(q.query);
  const scoped = q.conversationId != null;
  const upper = cursor?.p === "m" && cursor.id !== undefined ? cursor.id : Number.MAX_SAFE_INTEGER;
  let sql: string;
  let params: unknown[];
  if (word) {
    const fw = timeAndRoleSql(ctx, "m", "f.rowid");
    sql = `SELECT m.id AS id, m.id AS pos, m.created_at AS t, m.flags AS flags, m.text AS text FROM messages_fts f JOIN messages m ON m.id = f.rowid
           WHERE messages_fts MATCH ? AND f.rowid < ?${fw.sql} ORDER BY f.rowid DESC`;
    params = [ftsExpression(parseQuery(`"${word}"`), "AND", ctx.ctag), upper, ...fw.params];
    ctx.notes.push(`narrowed by the index to messages containing the word "${word}"`);
  } else if (scoped) {
    sql = `SELECT m.id AS id, m.seq AS pos, m.created_at AS t, m.flags AS flags, m.text AS text FROM messages m
           WHERE m.conversation_id = ? AND m.seq < ?${f.sql} ORDER BY m.seq DESC`;
    params = [q.conversationId, upper, ...f.params];
  } else {
    sql = `SELECT m.id AS id, m.id AS pos, m.created_at AS t, m.flags AS flags, m.text AS text FROM messages m
           WHERE m.id < ?${f.sql} ORDER BY m.id DESC`;
    params = [upper, ...f.params];
  }
  let lastPos = upper;
  let stoppedBy: "limit" | "rows" | "time" | null = null;
  for (const r of stmt(store.db, sql).iterate(...params) as Iterable<{ id: number; pos: number; t: number; flags: number; text: string | null }>) {
    scanned++;
    lastPos = r.pos;
    const body = r.flags & FLAG_HAS_PARTS || r.text === null ? messageBody(store, r.id) : r.text;
    const m = re.exec(body);
    if (m) {
      hits.push(toHit(ctx, { type: "message", rowid: r.id, score: 0, createdAt: r.t, via: "scan" }, null, null, snippetAround(body, m.index, m[0].length, q.snippetChars)));
      if (hits.length >= ctx.limit) {
        stoppedBy = "limit";
        break;
      }
    }
    if (scanned >= rowCap) {
      stoppedBy = "rows";
      break;
    }
    if ((scanned & 127) === 0 && performance.now() > deadline) {
      stoppedBy = "time";
      break;
    }
  }
  if (stoppedBy === "rows" || stoppedBy === "time") {
    ctx.notes.push(
      `regex scan stopped after ${scanned} rows (${stoppedBy === "time" ? `${budget} ms time cap` : "row cap"}); pass nextCursor to continue with older messages`,
    );
  }
  const more = stoppedBy !== null && lastPos > (scoped && !word ? 0 : 1);
  return {
    mode: "regex",
    hits,
    nextCursor: more ? encodeCursor({ q: key, p: "m", id: lastPos }) : null,
    complete: !more,
    scanned,
    notes: ctx.notes,
  };
}

// ------------------------------------------------------------------ hits

/** The searchable body of a message (content text + tool calls), as indexed. */
export function messageBody(store: SqliteLcmStore, id: number): string {
  return fastBody(store, id);
}

function sessionOf(ctx: Ctx, conversationId: number): string {
  let s = ctx.sessionIds.get(conversationId);
  if (s === undefined) {
    s = ctx.store.getConversation(conversationId)?.sessionId ?? "";
    ctx.sessionIds.set(conversationId, s);
  }
  return s;
}

export function snippetAround(text: string, index: number, length: number, chars = 160): string {
  const half = Math.max(20, Math.floor((chars - length) / 2));
  const start = Math.max(0, index - half);
  const end = Math.min(text.length, index + length + half);
  return `${start > 0 ? "…" : ""}${text.slice(start, index)}«${text.slice(index, index + length)}»${text.slice(index + length, end)}${end < text.length ? "…" : ""}`.replace(/\s+/g, " ");
}

function toHit(ctx: Ctx, c: Candidate, parsed: ParsedQuery | null, expression: string | null, snippet?: string): SearchHit {
  const { store } = ctx;
  if (c.type === "summary") {
    const s = stmt(store.db, "SELECT id, conversation_id, depth, kind, content, created_at, earliest_at FROM summaries WHERE rowid = ?").get(c.rowid) as {
      id: string;
      conversation_id: number;
      depth: number;
      kind: "leaf" | "condensed";
      content: string;
      created_at: number;
      earliest_at: number;
    };
    const snip = snippet ?? buildSnippet(s.content, ctx.matcher, ctx.q.snippetChars);
    return {
      type: "summary",
      ref: s.id,
      conversationId: s.conversation_id,
      sessionId: sessionOf(ctx, s.conversation_id),
      createdAt: s.created_at,
      snippet: snip ?? "",
      ...(c.via !== "scan" || parsed ? { score: round(c.score) } : {}),
      summaryId: s.id,
      depth: s.depth,
      kind: s.kind,
    };
  }
  const m = stmt(store.db, "SELECT id, conversation_id, seq, role, created_at FROM messages WHERE id = ?").get(c.rowid) as {
    id: number;
    conversation_id: number;
    seq: number;
    role: Role;
    created_at: number;
  };
  const snip = snippet ?? buildSnippet(messageBody(store, c.rowid), ctx.matcher, ctx.q.snippetChars);
  const inContext = stmt(store.db, "SELECT 1 FROM frontier WHERE conversation_id = ? AND message_id = ? LIMIT 1").get(m.conversation_id, m.id) !== undefined;
  const coveredBy = coveringChain(store, m.id);
  return {
    type: "message",
    ref: `msg_${m.id}`,
    conversationId: m.conversation_id,
    sessionId: sessionOf(ctx, m.conversation_id),
    createdAt: m.created_at,
    snippet: snip ?? "",
    ...(parsed ? { score: round(c.score) } : {}),
    messageId: m.id,
    seq: m.seq,
    role: m.role,
    inContext,
    ...(coveredBy.length ? { coveredBy } : {}),
  };
}

/** Nearest covering summary first, then its ancestors (bounded). */
export function coveringChain(store: SqliteLcmStore, messageId: number): string[] {
  const direct = store.summariesCoveringMessage(messageId);
  const chain: string[] = [];
  let current = direct[0];
  while (current && chain.length < 32) {
    chain.push(current);
    current = store.lineage(current).parentSummaryIds[0];
  }
  return chain;
}

function round(n: number): number {
  return Number(n.toPrecision(4));
}
