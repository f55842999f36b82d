import type { LcmSearchStore, SearchFilter } from "../store/search-types.js";

/** A term held by more messages than this is taken as not exhausted without looking (its holders are not counted). */
export const EXHAUSTED_TERM_MAX_HOLDERS = 1_000;

/**
 * Which of a query's terms have every holder in the conversation among the fetched rows. An unfetched message
 * next to no fetched one can then gain none of them from a neighbour: for a rare word beside a common one ("an
 * identifier and a word in a fifth of all messages"), the rows left unfetched can only say the common word, and
 * the ranking is proven after one batch instead of scoring thousands of neighbourhoods. Holders are counted in
 * the whole conversation (a neighbour outside the search's other filters still lends its words), and only for
 * terms at most `EXHAUSTED_TERM_MAX_HOLDERS` messages hold anywhere; any other term counts as not exhausted.
 */
export async function exhaustedTerms(
  search: LcmSearchStore,
  filter: SearchFilter,
  termExpressions: readonly string[],
  fetched: ReadonlySet<number>,
): Promise<boolean[]> {
  const scope: SearchFilter = { conversationId: filter.conversationId };
  const out: boolean[] = [];
  for (const expression of termExpressions) {
    if ((await search.documentFrequency(expression)) > EXHAUSTED_TERM_MAX_HOLDERS) {
      out.push(false);
      continue;
    }
    const holders = await search.rankMessages(expression, scope, { limit: EXHAUSTED_TERM_MAX_HOLDERS + 1, offset: 0 });
    out.push(holders.length <= EXHAUSTED_TERM_MAX_HOLDERS && holders.every((r) => fetched.has(r.rowid)));
  }
  return out;
}

/**
 * The most an unfetched row can still score, before the recency factor: its own words at most `last` (the last
 * fetched score), plus `extraWeight` × what one unfetched neighbour lends. A neighbour lends only terms the row
 * lacks that are not exhausted, each worth at most `last`, and all together at most its own score, `last`. The row
 * holds some term that is not exhausted (else it was fetched), so it lacks at most the other open ones. With every
 * term exhausted nothing unfetched is left.
 */
export function unfetchedBound(last: number, extraWeight: number, exhausted: readonly boolean[]): number {
  const open = exhausted.filter((e) => !e).length;
  if (open === 0) return -Infinity;
  return last + extraWeight * Math.min(last, last * (open - 1));
}
