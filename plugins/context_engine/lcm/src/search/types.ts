import type { Role } from "@context-engine/core";

export type SearchMode = "full_text" | "regex";
export type SearchScope = "messages" | "summaries" | "both";
export type SearchSort = "relevance" | "recency";

export interface SearchQuery {
  query: string;
  mode?: SearchMode;
  scope?: SearchScope;
  /** The conversation to search; null or absent = every conversation. */
  conversationId?: number | null;
  roles?: readonly Role[];
  /** Epoch ms bounds on the message (or summary span) time. */
  since?: number;
  before?: number;
  sort?: SearchSort;
  /** Hits per page (default 10, at most 100). */
  limit?: number;
  /** Opaque cursor from a previous result's `nextCursor`. */
  cursor?: string | null;
  /** Regex mode: case-insensitive (default true). */
  ignoreCase?: boolean;
  /** Regex mode: stop scanning after this long (default 250 ms). */
  regexTimeBudgetMs?: number;
  /** Regex mode: stop scanning after this many rows (default 200,000). */
  regexRowCap?: number;
  /**
   * Relevance sort: multiply each score by 1 + w·r, r from 0 (oldest in scope) to 1 (newest);
   * 0 (default) to 1. Ranks every match still: no row is left out for being old.
   */
  recencyBoost?: number;
  /**
   * Relevance sort: weight of the best-scoring neighbouring message (distance 1; distance 2 counts half) added
   * to a message's own score; 0 to 1, default 0.5; 0 ranks by each message's own words alone.
   */
  neighbourWeight?: number;
  /** Leave out messages and summaries that are in the active context already (default false: they are returned, marked inContext). */
  excludeInContext?: boolean;
  /** Characters of context in a snippet (default 160). */
  snippetChars?: number;
}

export interface SearchHit {
  type: "message" | "summary";
  /** `msg_<n>` or `sum_<hex>`: what lcm_describe and lcm_expand take. */
  ref: string;
  conversationId: number;
  sessionId: string;
  createdAt: number;
  snippet: string;
  /** Higher is better (relevance sort); absent in regex mode. */
  score?: number;
  // messages
  messageId?: number;
  seq?: number;
  role?: Role;
  /** Whether the message itself is in the current active context. */
  inContext?: boolean;
  /** Summary chain covering the message, nearest first (expand these to see it in context). */
  coveredBy?: string[];
  // summaries
  summaryId?: string;
  depth?: number;
  kind?: "leaf" | "condensed";
}

export interface SearchResult {
  mode: SearchMode;
  hits: SearchHit[];
  /** Pass back as `cursor` for the next page; null when there is nothing more. */
  nextCursor: string | null;
  /**
   * Whether the search covered everything in scope. False when a regex scan hit
   * its time bound or row cap (then nextCursor continues it), when more summaries
   * matched than are ranked at once, or when imported messages are still being indexed.
   */
  complete: boolean;
  /** Regex mode: rows examined in this call. */
  scanned?: number;
  /** Human-readable remarks (fallbacks taken, caps hit). */
  notes: string[];
}
