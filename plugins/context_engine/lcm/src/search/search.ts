import type { LcmSearchStore, SearchFilter } from "../store/search-types.js";
import type { LcmStoreDriver } from "../store/types.js";
import { decodeCursor, queryKey } from "./cursor.js";
import { fullTextSearch } from "./full-text.js";
import { checkQuerySize } from "./query.js";
import { regexSearch } from "./regex-search.js";
import type { SearchQuery, SearchResult } from "./types.js";

const MAX_LIMIT = 100;

/**
 * Search the stored history: messages (with tool calls and results) and
 * summaries. Errors come back as thrown `Error`s only from invalid queries,
 * cursors or regexes, which the tool layer turns into JSON.
 */
export async function searchHistory(store: Pick<LcmStoreDriver, "searchStore"> | LcmSearchStore, q: SearchQuery): Promise<SearchResult> {
  if (typeof q.query !== "string") throw new Error("query must be a string");
  checkQuerySize(q.query);
  if (q.mode === "regex" && q.query.includes("\u0000")) {
    // PostgreSQL stores searchable text without NUL, so a pattern holding one would answer differently per store.
    throw new Error("regex pattern contains a NUL character; remove it (stored text is searched without NUL)");
  }
  const search = "searchStore" in store ? await store.searchStore() : store;
  const limit = Math.max(1, Math.min(MAX_LIMIT, Math.floor(q.limit ?? 10)));
  const filter: SearchFilter = {
    conversationId: q.conversationId ?? null,
    ...(q.roles?.length ? { roles: q.roles } : {}),
    ...(q.since !== undefined ? { since: q.since } : {}),
    ...(q.before !== undefined ? { before: q.before } : {}),
    ...(q.excludeInContext ? { excludeInContext: true } : {}),
  };
  const key = queryKey([
    q.query,
    q.mode ?? "full_text",
    q.scope ?? "both",
    filter.conversationId,
    q.roles ?? null,
    q.since ?? null,
    q.before ?? null,
    q.sort ?? "relevance",
    q.ignoreCase ?? true,
    q.recencyBoost ?? 0,
    q.neighbourWeight ?? null,
    q.excludeInContext ?? false,
  ]);
  const cursor = q.cursor ? decodeCursor(q.cursor, key) : null;
  // Messages imported with deferred indexing become searchable before a search answers; a huge
  // backlog is indexed for at most two seconds here, and the result then says it is incomplete.
  const { remaining } = await search.indexPending({ maxMs: 2000 });
  const ctx = { search, q, filter, limit, key, notes: [] as string[] };
  const result = (q.mode ?? "full_text") === "regex" ? await regexSearch(ctx, cursor) : await fullTextSearch(ctx, cursor);
  if (remaining > 0) {
    result.complete = false;
    result.notes.push(`${remaining} recently imported messages are still being indexed; repeat the search to include them`);
  }
  return result;
}

/** Nearest covering summary first, then its ancestors (bounded). */
export async function coveringChain(store: Pick<LcmStoreDriver, "searchStore">, messageId: number): Promise<string[]> {
  return await (await store.searchStore()).coveringChain(messageId);
}
