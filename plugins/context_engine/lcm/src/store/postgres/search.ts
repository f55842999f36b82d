import type { Pool, QueryResult } from "pg";
import type { Role } from "@context-engine/core";
import type {
  LcmSearchStore,
  MessageCorpusStats,
  MessageHitRow,
  NeighbourRow,
  ScanRow,
  ScoredRow,
  SearchFilter,
  SummaryHitRow,
  SummaryTextRow,
} from "../search-types.js";
import { rankSql, termTsQueries, toTsQuery } from "./tsquery.js";
import { cjkRuns, HAS_CJK_SQL } from "./layout.js";
import { MATCHED_IDS, matchedCte } from "./message-vector.js";
import { rankedMatchesSql } from "./rank.js";

/**
 * PostgreSQL text cannot hold NUL: drop it from every text parameter. Message bodies are stored
 * without it too (ingest), so a literal with NUL removed matches what was stored.
 */
function withoutNul(v: unknown): unknown {
  if (typeof v === "string") return v.includes("\u0000") ? v.replace(/\u0000/g, "") : v;
  if (Array.isArray(v)) return v.map(withoutNul);
  return v;
}

/** Numbered parameters for one statement. */
class Params {
  readonly values: unknown[] = [];
  add(v: unknown): string {
    this.values.push(withoutNul(v));
    return `$${this.values.length}`;
  }
}

/** Server refusals a search can meet, said plainly (SQLSTATE: canceled by a timeout, too complex, out of memory). */
const SEARCH_LIMITS: Record<string, string> = {
  "57014": "the search took longer than the server allows (statement_timeout); narrow the query",
  "54001": "the query is too complex for the server; use fewer words",
  "53200": "the server ran out of memory for this query; use fewer words",
};

function messageWhere(f: SearchFilter, p: Params): string {
  const parts: string[] = [];
  if (f.conversationId != null) parts.push(`m.conversation_id = ${p.add(f.conversationId)}`);
  if (f.since !== undefined) parts.push(`m.created_at >= ${p.add(f.since)}`);
  if (f.before !== undefined) parts.push(`m.created_at < ${p.add(f.before)}`);
  if (f.roles?.length) parts.push(`m.role = ANY(${p.add(f.roles)}::text[])`);
  if (f.excludeInContext) parts.push("NOT EXISTS (SELECT 1 FROM frontier fr WHERE fr.conversation_id = m.conversation_id AND fr.message_id = m.id)");
  return parts.length ? ` AND ${parts.join(" AND ")}` : "";
}

function summaryWhere(f: SearchFilter, p: Params): string {
  const parts: string[] = [];
  if (f.conversationId != null) parts.push(`s.conversation_id = ${p.add(f.conversationId)}`);
  if (f.since !== undefined) parts.push(`s.latest_at >= ${p.add(f.since)}`);
  if (f.before !== undefined) parts.push(`s.earliest_at < ${p.add(f.before)}`);
  if (f.excludeInContext) parts.push("NOT EXISTS (SELECT 1 FROM frontier fr WHERE fr.conversation_id = s.conversation_id AND fr.summary_id = s.id)");
  return parts.length ? ` AND ${parts.join(" AND ")}` : "";
}

/** A tsquery of `expression` with its parameters added to `p`. */
function tsq(expression: string, p: Params): string {
  const q = toTsQuery(expression, p.values.length + 1);
  p.values.push(...q.params.map(withoutNul));
  return `(${q.sql})`;
}

/** Position-free tsqueries of the terms of `expression`, their parameters added to `p`. */
function termQueries(expression: string, p: Params): string[] {
  return termTsQueries(expression, p.values.length + 1).map((t) => {
    p.values.push(...t.params.map(withoutNul));
    return `(${t.sql})`;
  });
}

const likeEscape = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
const scored = (r: { rowid: string; score: number; created_at: string }): ScoredRow => ({ rowid: Number(r.rowid), score: Number(r.score), createdAt: Number(r.created_at) });
const summaryRow = (r: Record<string, unknown>): SummaryTextRow => ({
  rowid: Number(r.rid),
  conversationId: Number(r.conversation_id),
  content: String(r.content),
  createdAt: Number(r.created_at),
});

/**
 * The LCM search operations on PostgreSQL: an expression GIN index over the
 * folded body's `tsvector` for full text (matches from the index alone, ranked
 * by `ts_rank_cd` over vectors computed for a bounded pool, see rank.ts and
 * message-vector.ts), `ILIKE` for CJK
 * and substring tests (CJK served by the trigram index over the CJK text when
 * pg_trgm is present). Every write indexes at once, so nothing is ever pending.
 */
export class PostgresSearchStore implements LcmSearchStore {
  readonly #pool: Pool;

  constructor(pool: Pool) {
    this.#pool = pool;
  }

  /** One statement; a server limit comes back as a clear error. */
  async #query(text: string, values?: unknown[]): Promise<QueryResult> {
    try {
      return await this.#pool.query(text, values?.map(withoutNul));
    } catch (error) {
      const limit = SEARCH_LIMITS[String((error as { code?: unknown }).code)];
      if (limit) throw new Error(`search: ${limit}`);
      throw error;
    }
  }

  indexPending(): { remaining: number } {
    return { remaining: 0 };
  }

  async rankMessages(expression: string, filter: SearchFilter, page: { limit: number; offset: number }): Promise<ScoredRow[]> {
    const p = new Params();
    const q = tsq(expression, p);
    const w = messageWhere(filter, p);
    const terms = termQueries(expression, p);
    const { rows } = await this.#query(rankedMatchesSql(q, terms, w, p.add(page.limit), p.add(page.offset)), p.values);
    return rows.map(scored);
  }

  async newestMessages(expression: string, filter: SearchFilter, page: { limit: number; offset: number }): Promise<ScoredRow[]> {
    const p = new Params();
    const q = tsq(expression, p);
    const w = messageWhere(filter, p);
    const { rows } = await this.#query(
      `WITH ${matchedCte(q)} SELECT m.id AS rowid, 0 AS score, m.created_at FROM messages m
       WHERE ${MATCHED_IDS}${w} ORDER BY m.id DESC LIMIT ${p.add(page.limit)} OFFSET ${p.add(page.offset)}`,
      p.values,
    );
    return rows.map(scored);
  }

  async cjkMessages(match: string | null, substrings: readonly string[], filter: SearchFilter, limit: number): Promise<ScoredRow[]> {
    // `match` holds the quoted terms of three or more characters (FTS5 syntax): each one, and each short term, must occur.
    const terms = [...(match ? [...match.matchAll(/"((?:[^"]|"")*)"/g)].map((m) => m[1]!.replace(/""/g, '"')) : []), ...substrings];
    const p = new Params();
    const w = messageWhere(filter, p);
    const like = terms.map((t) => ` AND m.body ILIKE ${p.add(likeEscape(t))}`).join("");
    // Each CJK run of a term occurs in the CJK-only text too: that is what the (partial) trigram index covers.
    const runs = terms.flatMap(cjkRuns);
    const cjk = runs.length ? ` AND ${HAS_CJK_SQL}${runs.map((r) => ` AND lcm_cjk(m.body) LIKE ${p.add(likeEscape(r))}`).join("")}` : "";
    const { rows } = await this.#query(
      `SELECT m.id AS rowid, 1 AS score, m.created_at FROM messages m WHERE TRUE${w}${cjk}${like} ORDER BY m.id DESC LIMIT ${p.add(limit)}`,
      p.values,
    );
    return rows.map(scored);
  }

  async scoreMessages(expression: string, ids: readonly number[]): Promise<Map<number, number>> {
    if (!ids.length) return new Map();
    // Scored as rankMessages scores a search's matches, the ids taking the place of the filter (rank.ts).
    const p = new Params();
    const q = tsq(expression, p);
    const w = ` AND m.id = ANY(${p.add(ids)}::bigint[])`;
    const terms = termQueries(expression, p);
    const { rows } = await this.#query(rankedMatchesSql(q, terms, w, "ALL", "0"), p.values);
    return new Map(rows.map((r) => [Number(r.rowid), Number(r.score)]));
  }

  async messageNeighbours(ids: readonly number[], radius: number, filter: SearchFilter): Promise<NeighbourRow[]> {
    if (!ids.length || radius < 1) return [];
    // The neighbour is aliased m so that the filter's SQL applies to it; (conversation_id, seq) is indexed.
    const p = new Params();
    const w = messageWhere(filter, p);
    const r = p.add(radius);
    const { rows } = await this.#query(
      `SELECT m.id, c.id AS of, abs(m.seq - c.seq) AS distance, (m.seq < c.seq) AS before, m.created_at, (TRUE${w}) AS in_scope
       FROM messages c JOIN messages m ON m.conversation_id = c.conversation_id AND m.seq BETWEEN c.seq - ${r}::int AND c.seq + ${r}::int AND m.id <> c.id
       WHERE c.id = ANY(${p.add(ids)}::bigint[])`,
      p.values,
    );
    return rows.map((x) => ({ id: Number(x.id), of: Number(x.of), distance: Number(x.distance), before: x.before === true, createdAt: Number(x.created_at), inScope: x.in_scope === true }));
  }

  async summaryAlone(summaryRowid: number, expression: string): Promise<boolean> {
    const p = new Params();
    const q = tsq(expression, p);
    const { rows } = await this.#query(
      `WITH ${matchedCte(q)} SELECT 1 FROM summaries s WHERE s.rid = ${p.add(summaryRowid)} AND s.search @@ ${q}
         AND NOT EXISTS (SELECT 1 FROM messages m WHERE ${MATCHED_IDS} AND m.conversation_id = s.conversation_id AND m.seq BETWEEN s.first_seq AND s.last_seq)`,
      p.values,
    );
    return rows.length > 0;
  }

  async documentFrequency(expression: string): Promise<number> {
    const p = new Params();
    const q = tsq(expression, p);
    return Number((await this.#query(`WITH ${matchedCte(q)} SELECT count(*) AS n FROM matched`, p.values)).rows[0].n);
  }

  async messageCorpus(): Promise<MessageCorpusStats> {
    return { docs: Number((await this.#query("SELECT COALESCE(sum(message_count), 0) AS n FROM conversations")).rows[0].n) };
  }

  async timeSpan(conversationId: number | null): Promise<{ first: number; last: number }> {
    const { rows } = await this.#query(
      "SELECT min(created_at) AS first, max(created_at) AS last FROM messages WHERE $1::bigint IS NULL OR conversation_id = $1",
      [conversationId],
    );
    const first = Number(rows[0]?.first ?? 0);
    return { first, last: rows[0]?.last == null ? first : Number(rows[0].last) };
  }

  async idSpan(conversationId: number | null): Promise<{ lo: number; hi: number }> {
    const { rows } = await this.#query("SELECT min(id) AS lo, max(id) AS hi FROM messages WHERE $1::bigint IS NULL OR conversation_id = $1", [conversationId]);
    return rows[0]?.lo == null ? { lo: 1, hi: 0 } : { lo: Number(rows[0].lo), hi: Number(rows[0].hi) };
  }

  async matchingSummaries(expression: string | null, substrings: readonly string[], filter: SearchFilter, limit: number): Promise<SummaryTextRow[]> {
    const p = new Params();
    if (expression === null) {
      const w = summaryWhere(filter, p);
      const like = substrings.map((t) => ` AND s.content ILIKE ${p.add(likeEscape(t))}`).join("");
      return (await this.#query(`SELECT * FROM summaries s WHERE TRUE${w}${like} ORDER BY s.rid DESC LIMIT ${p.add(limit)}`, p.values)).rows.map(summaryRow);
    }
    const q = tsq(expression, p);
    const w = summaryWhere(filter, p);
    const { rows } = await this.#query(
      `SELECT * FROM summaries s WHERE s.search @@ ${q}${w} ORDER BY ${rankSql("s.search", q)} DESC, s.rid DESC LIMIT ${p.add(limit)}`,
      p.values,
    );
    return rows.map(summaryRow);
  }

  async summaryMeanChars(conversationId: number | null): Promise<number> {
    const { rows } = await this.#query("SELECT avg(length(content)) AS a FROM summaries WHERE $1::bigint IS NULL OR conversation_id = $1", [conversationId]);
    return rows[0]?.a == null ? 1 : Number(rows[0].a);
  }

  async summaryTexts(filter: SearchFilter, offset: number, limit: number): Promise<SummaryTextRow[]> {
    const p = new Params();
    const w = summaryWhere(filter, p);
    return (await this.#query(`SELECT * FROM summaries s WHERE TRUE${w} ORDER BY s.rid DESC LIMIT ${p.add(limit)} OFFSET ${p.add(offset)}`, p.values)).rows.map(summaryRow);
  }

  async scanMessages(
    filter: SearchFilter,
    narrow: { word?: string | null; literal?: string | null },
    ids: { above: number; below: number },
    maxChars: number,
  ): Promise<ScanRow[]> {
    // One window per call (the caller bounds it); a cursor-free read is enough at these sizes.
    const p = new Params();
    const matched = narrow.word ? `WITH ${matchedCte(tsq(narrow.word, p))} ` : "";
    const word = narrow.word ? ` AND ${MATCHED_IDS}` : "";
    const w = messageWhere(filter, p);
    const literal = narrow.literal ? ` AND m.body ILIKE ${p.add(likeEscape(narrow.literal))}` : "";
    const { rows } = await this.#query(
      `${matched}SELECT m.id, m.created_at, substr(m.body, 1, ${Math.trunc(maxChars)}) AS body FROM messages m
       WHERE m.id > ${p.add(ids.above)} AND m.id < ${p.add(ids.below)}${word}${w}${literal} ORDER BY m.id DESC LIMIT 5000`,
      p.values,
    );
    return rows.map((r) => ({ id: Number(r.id), pos: Number(r.id), createdAt: Number(r.created_at), body: String(r.body) }));
  }

  async messageBodies(ids: readonly number[]): Promise<Map<number, string>> {
    if (!ids.length) return new Map();
    const { rows } = await this.#query("SELECT id, body FROM messages WHERE id = ANY($1::bigint[])", [ids]);
    return new Map(rows.map((r) => [Number(r.id), String(r.body)]));
  }

  async messageHits(ids: readonly number[]): Promise<Map<number, MessageHitRow>> {
    if (!ids.length) return new Map();
    const { rows } = await this.#query(
      `SELECT m.id, m.conversation_id, m.seq, m.role, m.created_at,
         EXISTS (SELECT 1 FROM frontier fr WHERE fr.conversation_id = m.conversation_id AND fr.message_id = m.id) AS in_context
       FROM messages m WHERE m.id = ANY($1::bigint[])`,
      [ids],
    );
    return new Map(
      rows.map((r) => [
        Number(r.id),
        { id: Number(r.id), conversationId: Number(r.conversation_id), seq: r.seq, role: r.role as Role, createdAt: Number(r.created_at), inContext: r.in_context === true },
      ]),
    );
  }

  async summaryHits(rowids: readonly number[]): Promise<Map<number, SummaryHitRow>> {
    if (!rowids.length) return new Map();
    const { rows } = await this.#query("SELECT * FROM summaries WHERE rid = ANY($1::bigint[])", [rowids]);
    return new Map(
      rows.map((r) => [
        Number(r.rid),
        { id: r.id, conversationId: Number(r.conversation_id), depth: r.depth, kind: r.kind, content: r.content, createdAt: Number(r.created_at) },
      ]),
    );
  }

  async coveringChain(messageId: number): Promise<string[]> {
    // Nearest covering summary, then its parents, bounded like the SQLite store.
    const { rows } = await this.#query(
      `WITH RECURSIVE chain(id, n) AS (
         (SELECT s.id, 1 FROM summary_sources sm JOIN summaries s ON s.rid = sm.summary_rid WHERE sm.message_id = $1 ORDER BY s.id LIMIT 1)
         UNION ALL
         (SELECT (SELECT c.summary_id FROM summary_children c WHERE c.child_id = chain.id ORDER BY c.summary_id LIMIT 1), n + 1 FROM chain WHERE n < 32)
       ) SELECT id FROM chain WHERE id IS NOT NULL ORDER BY n`,
      [messageId],
    );
    return rows.map((r) => r.id as string);
  }

  async sessionOf(conversationId: number): Promise<string> {
    return ((await this.#query("SELECT session_id FROM conversations WHERE id = $1", [conversationId])).rows[0]?.session_id as string | undefined) ?? "";
  }
}
