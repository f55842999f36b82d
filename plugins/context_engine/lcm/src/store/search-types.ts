import type { Role } from "@context-engine/core";

/**
 * The search operations of an LCM store. `search/` holds the query logic
 * (parsing, scoring across messages and summaries, regex, snippets, cursors)
 * and reaches the data only through this interface, so another store (a
 * PostgreSQL one) implements the same operations with its own SQL.
 *
 * Full-text expressions are FTS5 query syntax as built by `search/query.ts`
 * (every term quoted, `body:` column filter, AND/OR/NOT, `"prefix"*`); a
 * store on another engine translates that small grammar.
 *
 * Every operation may answer synchronously (SQLite: better-sqlite3 is
 * synchronous, awaiting a plain value costs one microtask) or with a promise
 * (PostgreSQL); `search/` awaits each call.
 */

import type { MaybePromise } from "./maybe-promise.js";

export interface SearchFilter {
  /** The conversation to search; null = every conversation. */
  conversationId: number | null;
  roles?: readonly Role[] | null;
  /** Epoch ms bounds on the message (or summary span) time. */
  since?: number;
  before?: number;
  /** Leave out messages that are in their conversation's active context. */
  excludeInContext?: boolean;
}

export interface ScoredRow {
  rowid: number;
  /** Higher is better: the negated BM25 of the store's index (one scale per index). */
  score: number;
  createdAt: number;
}

export interface SummaryTextRow {
  rowid: number;
  conversationId: number;
  content: string;
  createdAt: number;
}

export interface MessageHitRow {
  id: number;
  conversationId: number;
  seq: number;
  role: Role;
  createdAt: number;
  inContext: boolean;
}

export interface SummaryHitRow {
  id: string;
  conversationId: number;
  depth: number;
  kind: "leaf" | "condensed";
  content: string;
  createdAt: number;
}

/** One message offered to the regex engine: `pos` orders the scan (newest first) and resumes it. */
export interface ScanRow {
  id: number;
  pos: number;
  createdAt: number;
  body: string;
}

/** A message within `distance` positions (seq) of message `of`, in the same conversation. */
export interface NeighbourRow {
  id: number;
  of: number;
  distance: number;
  /** Whether the neighbour comes before message `of` in the conversation (a lower seq). */
  before: boolean;
  createdAt: number;
  /** Whether the neighbour itself passes the search filter (it may then be a hit). */
  inScope: boolean;
}

export interface MessageCorpusStats {
  /** Messages in the full-text index (BM25's N). */
  docs: number;
}

export interface LcmSearchStore {
  /** Index messages queued by a bulk import, for at most `maxMs`. */
  indexPending(options: { maxMs: number }): MaybePromise<{ remaining: number }>;
  /**
   * Bring ranking aids kept beside the full-text index (SQLite's impact lists) up to what it holds, for at
   * most `maxMs`; true when nothing is left. Optional: a store without such aids has nothing to do.
   */
  catchUpLists?(options: { maxMs: number }): MaybePromise<boolean>;

  /** Messages matching `expression`, best BM25 first (ties: newest first), rows `offset`..`offset+limit`. */
  rankMessages(expression: string, filter: SearchFilter, page: { limit: number; offset: number }): MaybePromise<ScoredRow[]>;
  /** Messages matching `expression`, newest first. */
  newestMessages(expression: string, filter: SearchFilter, page: { limit: number; offset: number }): MaybePromise<ScoredRow[]>;
  /** Messages whose trigram-indexed text (CJK rows) matches, with substrings that must also occur. */
  cjkMessages(match: string | null, substrings: readonly string[], filter: SearchFilter, limit: number): MaybePromise<ScoredRow[]>;
  /** Scores (as rankMessages) of those of `ids` that match `expression`; unmatched ids are absent. */
  scoreMessages(expression: string, ids: readonly number[]): MaybePromise<Map<number, number>>;
  /** The messages at most `radius` positions before or after each of `ids` in its conversation. */
  messageNeighbours(ids: readonly number[], radius: number, filter: SearchFilter): MaybePromise<NeighbourRow[]>;
  /** Whether the summary (by rowid) matches `expression` and none of the messages it covers does. */
  summaryAlone(summaryRowid: number, expression: string): MaybePromise<boolean>;
  /** Messages holding `expression` and their count (BM25's document frequency of one term). */
  documentFrequency(expression: string): MaybePromise<number>;
  messageCorpus(): MaybePromise<MessageCorpusStats>;
  /** Time of the first and the last message in scope (recency boost). */
  timeSpan(conversationId: number | null): MaybePromise<{ first: number; last: number }>;
  /** Lowest and highest message id in scope (regex scans walk ids downwards). */
  idSpan(conversationId: number | null): MaybePromise<{ lo: number; hi: number }>;

  /** Summaries matching `expression` (or, with `substrings`, containing each one), best first, at most `limit`. */
  matchingSummaries(expression: string | null, substrings: readonly string[], filter: SearchFilter, limit: number): MaybePromise<SummaryTextRow[]>;
  /** Mean length in characters of the summaries in scope (BM25 length normalisation). */
  summaryMeanChars(conversationId: number | null): MaybePromise<number>;
  /** Every summary in scope, newest first, from `offset` (regex mode; summaries are few per conversation). */
  summaryTexts(filter: SearchFilter, offset: number, limit: number): MaybePromise<SummaryTextRow[]>;

  /**
   * Messages for a regex scan, newest first, with ids strictly between `above` and `below`
   * (the caller bounds the window; iteration may stop early). `word`: only messages whose index holds this word (or prefix) —
   * the regex cannot match without it. `literal`: only messages whose text holds this
   * substring (case-insensitive for ASCII). Bodies are cut to `maxChars`.
   */
  scanMessages(
    filter: SearchFilter,
    narrow: { word?: string | null; literal?: string | null },
    ids: { above: number; below: number },
    maxChars: number,
  ): MaybePromise<Iterable<ScanRow> | AsyncIterable<ScanRow>>;

  /** The searchable text (content and tool calls) of messages, as indexed. */
  messageBodies(ids: readonly number[]): MaybePromise<Map<number, string>>;
  messageHits(ids: readonly number[]): MaybePromise<Map<number, MessageHitRow>>;
  summaryHits(rowids: readonly number[]): MaybePromise<Map<number, SummaryHitRow>>;
  /** Nearest covering summary first, then its ancestors. */
  coveringChain(messageId: number): MaybePromise<string[]>;
  sessionOf(conversationId: number): MaybePromise<string>;
}
