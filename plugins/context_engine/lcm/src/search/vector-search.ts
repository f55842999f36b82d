import type { Embeddings } from "../embeddings/embedder.js";
import type { VectorMatch } from "../embeddings/vectors.js";
import type { LcmSearchStore } from "../store/search-types.js";
import type { LcmStoreDriver } from "../store/types.js";
import { decodeCursor, encodeCursor, queryKey } from "./cursor.js";
import { fuseHybrid } from "./hybrid-fusion.js";
import { toHits, type Candidate } from "./hits.js";
import { parseQuery } from "./query.js";
import { queryDates } from "./query-dates.js";
import { searchHistory } from "./search.js";
import { termMatcher } from "./snippet.js";
import type { SearchHit, SearchQuery, SearchResult } from "./types.js";

export type RetrievalMode = "full_text" | "regex" | "semantic" | "hybrid";
export type RetrievalResult = Omit<SearchResult, "mode"> & { mode: RetrievalMode };

/**
 * Lexical and vector candidates each list this deep before fusion (the page's end when deeper): twice the
 * default page. It also sets the range the vector part is scaled over (the 20th nearest scores 0). Under
 * reciprocal rank fusion, 50 each let USE-lite lift far-down word matches (−0.10 recall@10 on one LoCoMo
 * conversation); the head-protecting fusion of hybrid-fusion.ts was chosen at 20.
 */
const FUSION_DEPTH = 20;
/** The deepest page end a hybrid or semantic search ranks (lexical search pages 100 at a time). */
const MAX_DEPTH = 100;

/**
 * lcm_grep with an embedding provider: `full_text` (relevance sort) becomes hybrid, one list fused
 * from the word ranking and the vector ranking (`fuseHybrid`: the strong word hits keep their places, all of
 * them when the query names a date, below them words weigh `lexical_weight` times more than vectors); `semantic` ranks by vectors alone. Regex and recency sort are left to words.
 * When the query cannot be embedded (provider down, timeout) the answer is the words' own, with a note.
 */
export async function searchWithVectors(store: LcmStoreDriver, q: Omit<SearchQuery, "mode"> & { mode?: RetrievalMode }, embeddings: Embeddings): Promise<RetrievalResult> {
  const mode = q.mode ?? "full_text";
  const relevance = (q.sort ?? "relevance") === "relevance";
  if (mode === "regex" || (mode === "full_text" && !relevance)) return await searchHistory(store, { ...q, mode: mode === "regex" ? "regex" : "full_text" });
  const words = { ...q, mode: "full_text" as const };
  const limit = Math.max(1, Math.min(MAX_DEPTH, Math.floor(q.limit ?? 10)));
  const key = queryKey(["vectors", mode, embeddings.model, q.query, q.scope ?? "both", q.conversationId ?? null, q.roles ?? null, q.since ?? null, q.before ?? null, q.sort ?? "relevance", q.excludeInContext ?? false]);
  const offset = q.cursor ? (decodeCursor(q.cursor, key).o ?? 0) : 0;
  const need = Math.min(MAX_DEPTH, offset + limit + 1);

  const embedded = await embeddings.queryVector(q.query);
  if ("error" in embedded) {
    const result = await searchHistory(store, { ...words, cursor: null, ...(offset ? { limit } : {}) });
    result.notes.push(`${embedded.error}: ranked by words alone`);
    if (offset) result.notes.push("the cursor of a ranking by meaning cannot continue a ranking by words: this is its first page");
    return result;
  }
  const search = await store.searchStore();
  const index = await embeddings.index(store);
  const scope = q.scope ?? "both";
  const kinds = scope === "both" ? (["message", "summary"] as const) : scope === "messages" ? (["message"] as const) : (["summary"] as const);
  const depth = Math.max(need, FUSION_DEPTH);
  let matches = await index.nearest(embeddings.model, embedded.vector, { conversationId: q.conversationId ?? null, kinds, roles: q.roles ?? null, ...(q.since !== undefined ? { since: q.since } : {}), ...(q.before !== undefined ? { before: q.before } : {}) }, depth);
  if (q.excludeInContext) matches = await notInContext(search, store, matches);
  const refs = await refsOf(search, matches);
  const matcher = termMatcher(parseQuery(q.query).raw);
  const notes: string[] = [];
  let complete = true;
  let lexical: SearchHit[] = [];
  if (mode === "full_text") {
    const words0 = await wordsOrNull(() => searchHistory(store, { ...words, cursor: null, limit: Math.min(MAX_DEPTH, depth) }), notes);
    lexical = words0?.hits ?? [];
    complete = words0?.complete ?? true;
    if (words0) notes.push(...words0.notes);
  }
  const fused = fuseHybrid(
    lexical.map((h) => ({ key: h.ref, score: h.score ?? 0 })),
    matches.flatMap((m) => (refs.has(m) ? [{ key: refs.get(m)!, similarity: m.similarity }] : [])),
    { gate: lexicalGate(q.query, embeddings.config.lexical_gate), lexicalWeight: embeddings.config.lexical_weight },
  );
  const page = fused.slice(offset, offset + limit);
  const fromWords = new Map(lexical.map((h) => [h.ref, h]));
  const byRef = new Map(matches.map((m) => [refs.get(m), m]));
  const missing: Candidate[] = page
    .filter((f) => !fromWords.has(f.key))
    .map((f) => byRef.get(f.key)!)
    .map((m) => ({ type: m.kind, rowid: m.id, score: m.similarity, createdAt: m.createdAt }));
  const built = new Map((await toHits(search, missing, { matcher, snippetChars: q.snippetChars, scored: true })).map((h) => [h.ref, h]));
  const hits: SearchHit[] = [];
  for (const f of page) {
    const hit = fromWords.get(f.key) ?? built.get(f.key);
    if (!hit) continue;
    hits.push({ ...hit, score: mode === "semantic" ? round(byRef.get(f.key)!.similarity) : round(f.score) });
  }
  return {
    mode: mode === "semantic" ? "semantic" : "hybrid",
    hits,
    nextCursor: fused.length > offset + limit && offset + limit < MAX_DEPTH ? encodeCursor({ q: key, o: offset + limit }) : null,
    complete,
    notes,
  };
}

/**
 * The head gate of the fusion. A query naming a date ("in April 2022") ranks its word hits by when they were said as
 * well (full-text.ts, withDates): below the few that hold the rare words, its word ranking is the date's choice, with
 * scores near zero (only words such as a speaker's name, found in most messages, match there). The query's vector
 * cannot see when a message was said, so none of those word hits is demoted (gate 0: every word hit is head); meaning
 * adds below them. On LoCoMo every question whose hybrid page lost evidence to words named a date.
 */
function lexicalGate(query: string, gate: number): number {
  return queryDates(query).length ? 0 : gate;
}

function round(n: number): number {
  return Number(n.toPrecision(4));
}

/** `msg_<id>` for messages, the summary id for summaries (as lexical hits name them). */
async function refsOf(search: LcmSearchStore, matches: readonly VectorMatch[]): Promise<Map<VectorMatch, string>> {
  const summaries = await search.summaryHits(matches.filter((m) => m.kind === "summary").map((m) => m.id));
  const out = new Map<VectorMatch, string>();
  for (const m of matches) {
    const ref = m.kind === "message" ? `msg_${m.id}` : summaries.get(m.id)?.id;
    if (ref) out.set(m, ref);
  }
  return out;
}

async function notInContext(search: LcmSearchStore, store: LcmStoreDriver, matches: readonly VectorMatch[]): Promise<VectorMatch[]> {
  const messages = await search.messageHits(matches.filter((m) => m.kind === "message").map((m) => m.id));
  const summaries = await search.summaryHits(matches.filter((m) => m.kind === "summary").map((m) => m.id));
  const out: VectorMatch[] = [];
  for (const m of matches) {
    if (m.kind === "message" && messages.get(m.id)?.inContext) continue;
    const s = m.kind === "summary" ? summaries.get(m.id) : undefined;
    if (s && (await store.inFrontier(s.conversationId, { kind: "summary", summaryId: s.id }))) continue;
    out.push(m);
  }
  return out;
}

/** The word ranking, or null (with a note) when the query has no searchable words: the vectors still answer. */
async function wordsOrNull(run: () => Promise<SearchResult>, notes: string[]): Promise<SearchResult | null> {
  try {
    return await run();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (!message.startsWith("query has no searchable words")) throw error;
    notes.push("the query has no searchable words: ranked by meaning alone");
    return null;
  }
}
