import type { LcmSearchStore, ScoredRow, SearchFilter } from "../store/search-types.js";

/**
 * Neighbour context. In a conversation a turn is often understood only with
 * the turns around it (a question and its answer, a tool call and its result),
 * so a message's score adds what its neighbours say about the query words it
 * lacks, weighted by distance: score(x) = bm25(x) + Σ_d w_d · max over x ± d of
 * Σ_{t not in x} bm25_t(neighbour). A question "where did you go hiking?" lends
 * "hiking" to its answer "Mount Tam"; a neighbour repeating x's own words adds
 * nothing (so one-word queries rank by each message's own words). The turn
 * just before a message counts more when it asks a question (`answerWeight`
 * replaces w_1): the message is then most likely its answer, and a question's
 * words say what its answer is about ("How often do you all work out
 * together?" → "Three times a week"). Only messages that match the query
 * themselves are hits.
 */
export interface NeighbourRanking {
  /** One FTS expression per query term (their BM25 scores sum to the query's). */
  termExpressions: readonly string[];
  /** w_d for d = 1, 2, …; empty = neighbours do not count. */
  weights: readonly number[];
  /** Replaces w_1 when the turn just before the message asks a question (see `asksQuestion`); absent = w_1. */
  answerWeight?: number;
  /** Recency factor of a row (1 when no recency boost is asked for). */
  boost: (createdAt: number) => number;
}

/**
 * Known own scores (0 = looked up and not matching), filled lazily: only the
 * candidates' neighbourhoods are ever scored.
 */
export class OwnScores {
  readonly #known = new Map<number, number>();
  constructor(
    private readonly search: LcmSearchStore,
    private readonly expression: string,
  ) {}

  set(id: number, score: number): void {
    this.#known.set(id, score);
  }

  get(id: number): number {
    return this.#known.get(id) ?? 0;
  }

  /** Scores the ids not seen yet, in one statement. */
  async ensure(ids: Iterable<number>): Promise<void> {
    const missing = [...new Set(ids)].filter((id) => !this.#known.has(id));
    if (!missing.length) return;
    const got = await this.search.scoreMessages(this.expression, missing);
    for (const id of missing) this.#known.set(id, got.get(id) ?? 0);
  }
}

const perTerm = new WeakMap<OwnScores, Map<string, OwnScores>>();

/** Per-term scores, cached alongside the query's own scores for the whole search. */
function termScores(search: LcmSearchStore, expression: string, own: OwnScores): OwnScores {
  let m = perTerm.get(own);
  if (!m) perTerm.set(own, (m = new Map()));
  let t = m.get(expression);
  if (!t) m.set(expression, (t = new OwnScores(search, expression)));
  return t;
}

/**
 * The fetched rows and their in-scope neighbours, each scored with its
 * neighbourhood, best first (ties: newest first).
 */
export async function rankWithNeighbours(
  search: LcmSearchStore,
  filter: SearchFilter,
  fetched: readonly ScoredRow[],
  own: OwnScores,
  ranking: NeighbourRanking,
): Promise<ScoredRow[]> {
  const radius = ranking.weights.length;
  const created = new Map(fetched.map((r) => [r.rowid, r.createdAt]));
  for (const r of fetched) own.set(r.rowid, r.score);
  // Candidates: the fetched rows plus their neighbours that pass the filter (kept below if they match).
  for (const n of await search.messageNeighbours(fetched.map((r) => r.rowid), radius, filter)) {
    if (n.inScope && !created.has(n.id)) created.set(n.id, n.createdAt);
  }
  const candidates = [...created.keys()];
  const around = await search.messageNeighbours(candidates, radius, { conversationId: null });
  await own.ensure(candidates);
  const terms = ranking.termExpressions.map((e) => termScores(search, e, own));
  for (const t of terms) await t.ensure([...candidates, ...around.map((n) => n.id)]);
  // What each neighbour says about the query words the candidate does not hold.
  const lent = around.map((n) => {
    let sum = 0;
    for (const t of terms) if (t.get(n.of) === 0) sum += t.get(n.id);
    return sum;
  });
  const asking = ranking.answerWeight === undefined ? new Set<number>() : await questionsAmong(search, around.filter((n, i) => n.distance === 1 && n.before && lent[i]! > 0).map((n) => n.id));
  const best = new Map<number, number[]>();
  around.forEach((n, i) => {
    const w = n.distance === 1 && n.before && asking.has(n.id) ? ranking.answerWeight! : ranking.weights[n.distance - 1]!;
    const row = best.get(n.of) ?? new Array<number>(radius).fill(0);
    row[n.distance - 1] = Math.max(row[n.distance - 1]!, w * lent[i]!);
    best.set(n.of, row);
  });
  const rows = candidates.map((id) => {
    const near = best.get(id);
    let score = own.get(id);
    for (let d = 0; d < radius; d++) score += near?.[d] ?? 0;
    const createdAt = created.get(id)!;
    return { rowid: id, score: score * ranking.boost(createdAt), createdAt };
  });
  // Only messages that match the query themselves are hits (AND, phrases and exclusions keep their meaning).
  return rows.filter((r) => own.get(r.rowid) > 0).sort((a, b) => b.score - a.score || b.createdAt - a.createdAt || b.rowid - a.rowid);
}

/** A question mark that ends a sentence (not one inside a URL or a pattern such as `a?b`). */
const QUESTION = /\?+(?=["'’”)\]]*(?:\s|$))/u;

/** Whether a message asks something: its text holds a sentence ending in "?". */
export function asksQuestion(body: string): boolean {
  return QUESTION.test(body);
}

/** Those of `ids` whose text asks a question (one body look-up for the lot). */
async function questionsAmong(search: LcmSearchStore, ids: readonly number[]): Promise<Set<number>> {
  const out = new Set<number>();
  if (!ids.length) return out;
  for (const [id, body] of await search.messageBodies([...new Set(ids)])) if (asksQuestion(body)) out.add(id);
  return out;
}
