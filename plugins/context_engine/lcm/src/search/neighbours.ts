import type { LcmSearchStore, ScoredRow, SearchFilter } from "../store/search-types.js";

/**
 * Neighbour context. In a conversation a turn is often understood only with
 * the turns around it (a question and its answer, a tool call and its result),
 * so a message's score adds the best score among its neighbours, weighted by
 * distance: score(x) = bm25(x) + Σ_d w_d · max bm25(x ± d). Only messages
 * that match the query themselves are hits; the neighbours raise their rank.
 */
export interface NeighbourRanking {
  /** w_d for d = 1, 2, …; empty = neighbours do not count. */
  weights: readonly number[];
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
  ensure(ids: Iterable<number>): void {
    const missing = [...new Set(ids)].filter((id) => !this.#known.has(id));
    if (!missing.length) return;
    const got = this.search.scoreMessages(this.expression, missing);
    for (const id of missing) this.#known.set(id, got.get(id) ?? 0);
  }
}

/**
 * The fetched rows and their in-scope neighbours, each scored with its
 * neighbourhood, best first (ties: newest first).
 */
export function rankWithNeighbours(
  search: LcmSearchStore,
  filter: SearchFilter,
  fetched: readonly ScoredRow[],
  own: OwnScores,
  ranking: NeighbourRanking,
): ScoredRow[] {
  const radius = ranking.weights.length;
  const created = new Map(fetched.map((r) => [r.rowid, r.createdAt]));
  for (const r of fetched) own.set(r.rowid, r.score);
  // Candidates: the fetched rows plus their neighbours that pass the filter (kept below if they match).
  for (const n of search.messageNeighbours(fetched.map((r) => r.rowid), radius, filter)) {
    if (n.inScope && !created.has(n.id)) created.set(n.id, n.createdAt);
  }
  const candidates = [...created.keys()];
  const around = search.messageNeighbours(candidates, radius, { conversationId: null });
  own.ensure(around.map((n) => n.id));
  own.ensure(candidates);
  const best = new Map<number, number[]>();
  for (const n of around) {
    const row = best.get(n.of) ?? new Array<number>(radius).fill(0);
    row[n.distance - 1] = Math.max(row[n.distance - 1]!, own.get(n.id));
    best.set(n.of, row);
  }
  const rows = candidates.map((id) => {
    const near = best.get(id);
    let score = own.get(id);
    ranking.weights.forEach((w, d) => (score += w * (near?.[d] ?? 0)));
    const createdAt = created.get(id)!;
    return { rowid: id, score: score * ranking.boost(createdAt), createdAt };
  });
  // Only messages that match the query themselves are hits (AND, phrases and exclusions keep their meaning).
  return rows.filter((r) => own.get(r.rowid) > 0).sort((a, b) => b.score - a.score || b.createdAt - a.createdAt || b.rowid - a.rowid);
}
