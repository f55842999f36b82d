import type Database from "better-sqlite3";
import type { Role } from "@context-engine/core";
import { FLAG_CJK } from "../codec.js";
import { catchUpImpacts } from "./impact-index.js";
import { impactTopK } from "./impact-rank.js";
import { scheduleStatistics } from "./statistics.js";
import { SqliteLcmStore } from "./store.js";
import { stmt } from "./statements.js";
import type {
  LcmSearchStore,
  MessageCorpusStats,
  MessageHitRow,
  ScanRow,
  ScoredRow,
  NeighbourRow,
  SearchFilter,
  SummaryHitRow,
  SummaryTextRow,
} from "../search-types.js";

/** The searchable body of a message (content, then each tool call's name and arguments), as indexed. */
const BODY_SQL = `COALESCE(m.text, (SELECT CAST(p.data AS TEXT) FROM payloads p WHERE p.hash = m.payload), '')
  || CASE WHEN (m.flags & 1) = 0 THEN '' ELSE COALESCE((SELECT group_concat(char(10) || COALESCE(mp.name, '') || ' ' ||
       COALESCE(mp.body, (SELECT CAST(p2.data AS TEXT) FROM payloads p2 WHERE p2.hash = mp.payload), ''), '' ORDER BY mp.ordinal)
     FROM message_parts mp WHERE mp.message_id = m.id AND mp.kind = 1), '') END`;

/** First and last message id of a conversation: ids grow with seq, and (conversation_id, seq) is indexed. */
function conversationIds(db: Database.Database, conversationId: number): { lo: number; hi: number } {
  const lo = stmt(db, "SELECT id FROM messages WHERE conversation_id = ? ORDER BY seq LIMIT 1").get(conversationId) as { id: number } | undefined;
  const hi = stmt(db, "SELECT id FROM messages WHERE conversation_id = ? ORDER BY seq DESC LIMIT 1").get(conversationId) as { id: number } | undefined;
  return lo && hi ? { lo: Math.min(lo.id, hi.id), hi: Math.max(lo.id, hi.id) } : { lo: 1, hi: 0 };
}

interface Where {
  sql: string;
  params: unknown[];
}

/**
 * Message filters as SQL on `messages m`. The conversation bound is also given
 * as a rowid range on the full-text table: ids grow with seq inside a
 * conversation, so FTS5 skips the doclist outside it; `m.conversation_id`
 * then removes other conversations' rows inside the range.
 */
function messageWhere(db: Database.Database, f: SearchFilter, rowidColumn: string | null, idRange = false): Where {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (f.conversationId != null) {
    if (rowidColumn) {
      const r = conversationIds(db, f.conversationId);
      parts.push(`${rowidColumn} BETWEEN ? AND ?`);
      params.push(r.lo, r.hi);
    }
    // Under an id range the range is the index to use: `+` keeps the planner from walking the whole
    // conversation through (conversation_id, seq) instead, which it does without statistics.
    parts.push(idRange ? "+m.conversation_id = ?" : "m.conversation_id = ?");
    params.push(f.conversationId);
  }
  if (f.since !== undefined) {
    parts.push("m.created_at >= ?");
    params.push(f.since);
  }
  if (f.before !== undefined) {
    parts.push("m.created_at < ?");
    params.push(f.before);
  }
  if (f.roles?.length) {
    parts.push(`m.role IN (${f.roles.map(() => "?").join(", ")})`);
    params.push(...f.roles);
  }
  if (f.excludeInContext) parts.push("NOT EXISTS (SELECT 1 FROM frontier fr WHERE fr.conversation_id = m.conversation_id AND fr.message_id = m.id)");
  return { sql: parts.length ? ` AND ${parts.join(" AND ")}` : "", params };
}

function summaryWhere(f: SearchFilter): Where {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (f.conversationId != null) {
    parts.push("s.conversation_id = ?");
    params.push(f.conversationId);
  }
  if (f.since !== undefined) {
    parts.push("s.latest_at >= ?");
    params.push(f.since);
  }
  if (f.before !== undefined) {
    parts.push("s.earliest_at < ?");
    params.push(f.before);
  }
  if (f.excludeInContext) parts.push("NOT EXISTS (SELECT 1 FROM frontier fr WHERE fr.conversation_id = s.conversation_id AND fr.summary_id = s.id)");
  return { sql: parts.length ? ` AND ${parts.join(" AND ")}` : "", params };
}

/** The LCM search operations on the SQLite store (FTS5 with its own BM25). */
export class SqliteSearchStore implements LcmSearchStore {
  readonly #store: SqliteLcmStore;
  readonly #db: Database.Database;

  constructor(store: SqliteLcmStore) {
    this.#store = store;
    this.#db = SqliteLcmStore.handleOf(store);
  }

  indexPending(options: { maxMs: number }): { remaining: number } {
    const remaining = this.#store.indexPending({ maxMs: options.maxMs }).remaining;
    // Searches are where plans matter: statistics that no longer fit are rewritten after this call.
    scheduleStatistics(this.#db);
    return { remaining };
  }

  rankMessages(expression: string, filter: SearchFilter, page: { limit: number; offset: number }): ScoredRow[] {
    // FTS5 computes bm25() (body weight 1, conversation tag 0) for every match and SQLite's sorter keeps the
    // top `limit + offset`. ORDER BY bm25(...) is about twice as fast as ORDER BY rank (no inner query).
    const range = filter.conversationId != null ? this.#exclusiveRange(filter) : null;
    const fast = this.#fromImpactLists(expression, filter, page);
    if (fast) return fast;
    if (range) {
      // The conversation owns every id of its range: no join needed to filter; times read for the page only.
      const rows = stmt(
        this.#db,
        `SELECT rowid AS rowid, -bm25(messages_fts, 1.0, 0.0) AS score FROM messages_fts
         WHERE messages_fts MATCH ? AND rowid BETWEEN ? AND ? ORDER BY bm25(messages_fts, 1.0, 0.0), rowid DESC LIMIT ? OFFSET ?`,
      ).all(expression, range.lo, range.hi, page.limit, page.offset) as Array<{ rowid: number; score: number }>;
      const times = stmt(this.#db, "SELECT m.id AS id, m.created_at AS t FROM json_each(?) j JOIN messages m ON m.id = j.value").all(
        JSON.stringify(rows.map((r) => r.rowid)),
      ) as Array<{ id: number; t: number }>;
      const at = new Map(times.map((r) => [r.id, r.t]));
      return rows.map((r) => ({ rowid: r.rowid, score: r.score, createdAt: at.get(r.rowid) ?? 0 }));
    }
    const w = messageWhere(this.#db, filter, "f.rowid");
    const sql = `SELECT f.rowid AS rowid, -bm25(messages_fts, 1.0, 0.0) AS score, m.created_at AS createdAt
                 FROM messages_fts f JOIN messages m ON m.id = f.rowid
                 WHERE messages_fts MATCH ?${w.sql}
                 ORDER BY bm25(messages_fts, 1.0, 0.0), f.rowid DESC LIMIT ? OFFSET ?`;
    return stmt(this.#db, sql).all(expression, ...w.params, page.limit, page.offset) as ScoredRow[];
  }

  /** The same page from the impact lists (impact-rank.ts) when they can prove it; null otherwise. */
  #fromImpactLists(expression: string, filter: SearchFilter, page: { limit: number; offset: number }): ScoredRow[] | null {
    if (filter.conversationId == null || filter.since !== undefined || filter.before !== undefined || filter.roles?.length || filter.excludeInContext) return null;
    const { hi } = conversationIds(this.#db, filter.conversationId);
    const top = impactTopK(this.#db, expression, filter.conversationId, hi, page.offset + page.limit, (ids) => this.scoreMessages(expression, ids));
    if (!top) return null;
    const rows = top.slice(page.offset);
    const times = stmt(this.#db, "SELECT m.id AS id, m.created_at AS t FROM json_each(?) j JOIN messages m ON m.id = j.value").all(
      JSON.stringify(rows.map((r) => r.rowid)),
    ) as Array<{ id: number; t: number }>;
    const at = new Map(times.map((r) => [r.id, r.t]));
    return rows.map((r) => ({ rowid: r.rowid, score: r.score, createdAt: at.get(r.rowid) ?? 0 }));
  }

  /**
   * The impact lists follow what FTS5 holds, filled by the engine's background index drain only: a search never
   * waits for the write lock. Until a conversation is caught up its searches are ranked by FTS5 alone (the same
   * answer, slower).
   */
  catchUpLists(options: { maxMs: number }): boolean {
    return catchUpImpacts(this.#db, options.maxMs);
  }

  /** The id range of a conversation filtered by nothing else, when no other conversation has an id inside it. */
  #exclusiveRange(filter: SearchFilter): { lo: number; hi: number } | null {
    if (filter.conversationId == null || filter.since !== undefined || filter.before !== undefined || filter.roles?.length || filter.excludeInContext) return null;
    const range = conversationIds(this.#db, filter.conversationId);
    const conv = stmt(this.#db, "SELECT message_count AS n FROM conversations WHERE id = ?").get(filter.conversationId) as { n: number } | undefined;
    return conv && range.hi - range.lo + 1 === conv.n ? range : null;
  }

  newestMessages(expression: string, filter: SearchFilter, page: { limit: number; offset: number }): ScoredRow[] {
    const w = messageWhere(this.#db, filter, "f.rowid");
    const sql = `SELECT f.rowid AS rowid, 0 AS score, m.created_at AS createdAt FROM messages_fts f JOIN messages m ON m.id = f.rowid
                 WHERE messages_fts MATCH ?${w.sql} ORDER BY f.rowid DESC LIMIT ? OFFSET ?`;
    return stmt(this.#db, sql).all(expression, ...w.params, page.limit, page.offset) as ScoredRow[];
  }

  cjkMessages(match: string | null, substrings: readonly string[], filter: SearchFilter, limit: number): ScoredRow[] {
    const like = substrings.map(() => " AND instr(lower(b.body), lower(?)) > 0").join("");
    if (match) {
      const w = messageWhere(this.#db, filter, "f.rowid");
      const sql = `SELECT f.rowid AS rowid, -f.rank AS score, m.created_at AS createdAt FROM messages_cjk f JOIN messages m ON m.id = f.rowid
                   JOIN message_search b ON b.id = f.rowid
                   WHERE messages_cjk MATCH ?${w.sql}${like} ORDER BY f.rank, f.rowid DESC LIMIT ?`;
      return stmt(this.#db, sql).all(match, ...w.params, ...substrings, limit) as ScoredRow[];
    }
    // One- or two-character terms only: trigrams cannot index them; the CJK rows in scope are tested in SQL.
    const w = messageWhere(this.#db, filter, null);
    const sql = `SELECT m.id AS rowid, 1 AS score, m.created_at AS createdAt FROM messages m JOIN message_search b ON b.id = m.id
                 WHERE (m.flags & ${FLAG_CJK}) != 0${w.sql}${like} ORDER BY m.id DESC LIMIT ?`;
    return stmt(this.#db, sql).all(...w.params, ...substrings, limit) as ScoredRow[];
  }

  scoreMessages(expression: string, ids: readonly number[]): Map<number, number> {
    const out = new Map<number, number>();
    if (!ids.length) return out;
    // FTS5 with MATCH does not honour `rowid = ?` / `rowid IN (…)` as a filter here: the id range bounds the
    // doclist walk and `+rowid` (no index use) filters exactly.
    const sql = `SELECT rowid AS rowid, -bm25(messages_fts, 1.0, 0.0) AS score FROM messages_fts
                 WHERE messages_fts MATCH ? AND rowid BETWEEN ? AND ? AND +rowid IN (SELECT value FROM json_each(?))`;
    const lo = Math.min(...ids);
    const hi = Math.max(...ids);
    for (const r of stmt(this.#db, sql).iterate(expression, lo, hi, JSON.stringify(ids)) as Iterable<{ rowid: number; score: number }>) out.set(r.rowid, r.score);
    return out;
  }

  messageNeighbours(ids: readonly number[], radius: number, filter: SearchFilter): NeighbourRow[] {
    if (!ids.length || radius < 1) return [];
    // The neighbour is aliased m so that the filter's SQL applies to it; (conversation_id, seq) is indexed.
    const w = messageWhere(this.#db, filter, null);
    const sql = `SELECT m.id AS id, c.id AS of, abs(m.seq - c.seq) AS distance, (m.seq < c.seq) AS before, m.created_at AS createdAt, (1${w.sql}) AS inScope
                 FROM json_each(?) j JOIN messages c ON c.id = j.value
                 JOIN messages m ON m.conversation_id = c.conversation_id AND m.seq BETWEEN c.seq - ? AND c.seq + ? AND m.id != c.id`;
    return (stmt(this.#db, sql).all(...w.params, JSON.stringify(ids), radius, radius) as Array<Omit<NeighbourRow, "inScope" | "before"> & { inScope: number; before: number }>).map(
      (r) => ({ ...r, before: r.before === 1, inScope: r.inScope === 1 }),
    );
  }

  summaryAlone(summaryRowid: number, expression: string): boolean {
    const own = stmt(this.#db, "SELECT 1 FROM summaries_fts WHERE summaries_fts MATCH ? AND rowid BETWEEN ? AND ? AND +rowid = ?").get(
      expression,
      summaryRowid,
      summaryRowid,
      summaryRowid,
    );
    return own !== undefined && !this.#summarySourcesMatch(summaryRowid, expression);
  }

  #summarySourcesMatch(summaryRowid: number, expression: string): boolean {
    const s = stmt(this.#db, "SELECT conversation_id AS c, first_seq AS a, last_seq AS b FROM summaries WHERE rowid = ?").get(summaryRowid) as
      | { c: number; a: number; b: number }
      | undefined;
    if (!s) return false;
    const id = (seq: number, dir: string) =>
      (stmt(this.#db, `SELECT id FROM messages WHERE conversation_id = ? AND seq ${dir === "lo" ? ">=" : "<="} ? ORDER BY seq ${dir === "lo" ? "" : "DESC"} LIMIT 1`).get(s.c, seq) as
        | { id: number }
        | undefined)?.id;
    const lo = id(s.a, "lo");
    const hi = id(s.b, "hi");
    if (lo === undefined || hi === undefined) return false;
    const sql = `SELECT 1 FROM messages_fts f JOIN messages m ON m.id = f.rowid
                 WHERE messages_fts MATCH ? AND f.rowid BETWEEN ? AND ? AND m.conversation_id = ? LIMIT 1`;
    return stmt(this.#db, sql).get(expression, Math.min(lo, hi), Math.max(lo, hi), s.c) !== undefined;
  }

  documentFrequency(expression: string): number {
    return (stmt(this.#db, "SELECT count(*) AS n FROM messages_fts WHERE messages_fts MATCH ?").get(expression) as { n: number }).n;
  }

  messageCorpus(): MessageCorpusStats {
    const total = (stmt(this.#db, "SELECT COALESCE(sum(message_count), 0) AS n FROM conversations").get() as { n: number }).n;
    const pending = (stmt(this.#db, "SELECT count(*) AS n FROM fts_pending").get() as { n: number }).n;
    return { docs: Math.max(0, total - pending) };
  }

  matchingSummaries(expression: string | null, substrings: readonly string[], filter: SearchFilter, limit: number): SummaryTextRow[] {
    const w = summaryWhere(filter);
    const cols = "s.rowid AS rowid, s.conversation_id AS conversationId, s.content AS content, s.created_at AS createdAt";
    if (expression === null) {
      const like = substrings.map(() => " AND instr(lower(s.content), lower(?)) > 0").join("");
      return stmt(this.#db, `SELECT ${cols} FROM summaries s WHERE 1${w.sql}${like} ORDER BY s.rowid DESC LIMIT ?`).all(
        ...w.params,
        ...substrings,
        limit,
      ) as SummaryTextRow[];
    }
    const sql = `SELECT ${cols} FROM summaries_fts f JOIN summaries s ON s.rowid = f.rowid
                 WHERE summaries_fts MATCH ? AND f.rank MATCH 'bm25(1.0, 0.0)'${w.sql} ORDER BY f.rank LIMIT ?`;
    return stmt(this.#db, sql).all(expression, ...w.params, limit) as SummaryTextRow[];
  }

  summaryMeanChars(conversationId: number | null): number {
    const sql = conversationId == null ? "SELECT avg(length(content)) AS a FROM summaries" : "SELECT avg(length(content)) AS a FROM summaries WHERE conversation_id = ?";
    const r = stmt(this.#db, sql).get(...(conversationId == null ? [] : [conversationId])) as { a: number | null };
    return r.a ?? 1;
  }

  summaryTexts(filter: SearchFilter, offset: number, limit: number): SummaryTextRow[] {
    const w = summaryWhere(filter);
    return stmt(
      this.#db,
      `SELECT s.rowid AS rowid, s.conversation_id AS conversationId, s.content AS content, s.created_at AS createdAt
       FROM summaries s WHERE 1${w.sql} ORDER BY s.rowid DESC LIMIT ? OFFSET ?`,
    ).all(...w.params, limit, offset) as SummaryTextRow[];
  }

  scanMessages(filter: SearchFilter, narrow: { word?: string | null; literal?: string | null }, ids: { above: number; below: number }, maxChars: number): Iterable<ScanRow> {
    const body = `substr(${BODY_SQL}, 1, ${Math.trunc(maxChars)})`;
    const literal = narrow.literal ? ` AND ${BODY_SQL} LIKE ? ESCAPE '\\'` : "";
    const literalParams = narrow.literal ? [`%${narrow.literal.replace(/[\\%_]/g, (c) => `\\${c}`)}%`] : [];
    if (narrow.word) {
      const w = messageWhere(this.#db, filter, null);
      const sql = `SELECT m.id AS id, m.id AS pos, m.created_at AS createdAt, ${body} AS body FROM messages_fts f JOIN messages m ON m.id = f.rowid
                   WHERE messages_fts MATCH ? AND f.rowid > ? AND f.rowid < ?${w.sql}${literal} ORDER BY f.rowid DESC`;
      return stmt(this.#db, sql).iterate(narrow.word, ids.above, ids.below, ...w.params, ...literalParams) as Iterable<ScanRow>;
    }
    const w = messageWhere(this.#db, filter, null, true);
    const sql = `SELECT m.id AS id, m.id AS pos, m.created_at AS createdAt, ${body} AS body FROM messages m
                 WHERE m.id > ? AND m.id < ?${w.sql}${literal} ORDER BY m.id DESC`;
    return stmt(this.#db, sql).iterate(ids.above, ids.below, ...w.params, ...literalParams) as Iterable<ScanRow>;
  }

  timeSpan(conversationId: number | null): { first: number; last: number } {
    const [a, b] =
      conversationId == null
        ? ["SELECT created_at AS t FROM messages ORDER BY id LIMIT 1", "SELECT created_at AS t FROM messages ORDER BY id DESC LIMIT 1"]
        : [
            "SELECT created_at AS t FROM messages WHERE conversation_id = ? ORDER BY seq LIMIT 1",
            "SELECT created_at AS t FROM messages WHERE conversation_id = ? ORDER BY seq DESC LIMIT 1",
          ];
    const params = conversationId == null ? [] : [conversationId];
    const first = (stmt(this.#db, a).get(...params) as { t: number } | undefined)?.t ?? 0;
    const last = (stmt(this.#db, b).get(...params) as { t: number } | undefined)?.t ?? first;
    return { first, last };
  }

  idSpan(conversationId: number | null): { lo: number; hi: number } {
    if (conversationId != null) return conversationIds(this.#db, conversationId);
    const r = stmt(this.#db, "SELECT min(id) AS lo, max(id) AS hi FROM messages").get() as { lo: number | null; hi: number | null };
    return { lo: r.lo ?? 1, hi: r.hi ?? 0 };
  }

  messageBodies(ids: readonly number[]): Map<number, string> {
    const out = new Map<number, string>();
    if (!ids.length) return out;
    for (const r of stmt(this.#db, `SELECT m.id AS id, ${BODY_SQL} AS body FROM json_each(?) j JOIN messages m ON m.id = j.value`).iterate(
      JSON.stringify(ids),
    ) as Iterable<{ id: number; body: string }>) {
      out.set(r.id, r.body);
    }
    return out;
  }

  messageHits(ids: readonly number[]): Map<number, MessageHitRow> {
    const out = new Map<number, MessageHitRow>();
    if (!ids.length) return out;
    const sql = `SELECT m.id AS id, m.conversation_id AS conversationId, m.seq AS seq, m.role AS role, m.created_at AS createdAt,
                   EXISTS (SELECT 1 FROM frontier fr WHERE fr.conversation_id = m.conversation_id AND fr.message_id = m.id) AS inContext
                 FROM json_each(?) j JOIN messages m ON m.id = j.value`;
    for (const r of stmt(this.#db, sql).iterate(JSON.stringify(ids)) as Iterable<Omit<MessageHitRow, "inContext"> & { inContext: number; role: Role }>) {
      out.set(r.id, { ...r, inContext: r.inContext === 1 });
    }
    return out;
  }

  summaryHits(rowids: readonly number[]): Map<number, SummaryHitRow> {
    const out = new Map<number, SummaryHitRow>();
    if (!rowids.length) return out;
    const sql = `SELECT s.rowid AS rowid, s.id AS id, s.conversation_id AS conversationId, s.depth AS depth, s.kind AS kind, s.content AS content,
                   s.created_at AS createdAt FROM json_each(?) j JOIN summaries s ON s.rowid = j.value`;
    for (const r of stmt(this.#db, sql).iterate(JSON.stringify(rowids)) as Iterable<SummaryHitRow & { rowid: number }>) {
      const { rowid, ...hit } = r;
      out.set(rowid, hit);
    }
    return out;
  }

  coveringChain(messageId: number): string[] {
    const chain: string[] = [];
    let current = this.#store.summariesCoveringMessage(messageId)[0];
    while (current && chain.length < 32) {
      chain.push(current);
      current = this.#store.lineage(current).parentSummaryIds[0];
    }
    return chain;
  }

  sessionOf(conversationId: number): string {
    return this.#store.getConversation(conversationId)?.sessionId ?? "";
  }
}

const searchStores = new WeakMap<SqliteLcmStore, SqliteSearchStore>();

/** The search operations of a store (one object per store handle). */
export function searchStoreOf(store: SqliteLcmStore): SqliteSearchStore {
  let s = searchStores.get(store);
  if (!s) {
    s = new SqliteSearchStore(store);
    searchStores.set(store, s);
  }
  return s;
}
