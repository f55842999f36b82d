import type { ScoredRow } from "../store/search-types.js";
import { authorLabel } from "./feedback.js";

/**
 * Speaker-aware scoring. In a transcript whose messages start with a `Name: `
 * label (feedback.ts reads it), a question naming a speaker ("what has Alice
 * painted?") is about what that speaker said: her own turns state her facts,
 * while the other side's turns that name her ("Wow, Alice, …") mostly react
 * to them. So the first round's messages by a named speaker score
 * `SPEAKER_FACTOR` times their own.
 *
 * Only when the words already point there: the factor applies when the best
 * first-round message is by a named speaker. When it is by someone else, the
 * question's words are about a thing another person said or did (the question
 * may name the wrong person), and favouring the named speaker would push that
 * evidence down; the ranking is then left alone.
 */
export const SPEAKER_FACTOR = 1.25;

/** Lower-cased single words of the query's raw terms (a quoted phrase gives each of its words). */
function queryWords(raw: readonly string[]): Set<string> {
  return new Set(raw.flatMap((t) => t.toLowerCase().split(/\s+/)).filter(Boolean));
}

/** Whether a message's `Name:` label shares a word with the query (one of a full name's words is enough). */
function byNamed(body: string, named: ReadonlySet<string>): boolean {
  return authorLabel(body).some((w) => named.has(w));
}

/**
 * `rows` (best first) with the named speaker's messages scored ×SPEAKER_FACTOR and
 * re-sorted (ties: newest first, as the store ranks), or `rows` itself when the rule
 * does not apply (no label names a query word, or the best row is someone else's).
 */
export function favourNamedSpeaker(rows: readonly ScoredRow[], bodies: ReadonlyMap<number, string>, raw: readonly string[]): readonly ScoredRow[] {
  if (rows.length < 2) return rows;
  const named = queryWords(raw);
  if (!byNamed(bodies.get(rows[0]!.rowid) ?? "", named)) return rows;
  return rows
    .map((r) => (byNamed(bodies.get(r.rowid) ?? "", named) ? { ...r, score: r.score * SPEAKER_FACTOR } : r))
    .sort((a, b) => b.score - a.score || b.createdAt - a.createdAt || b.rowid - a.rowid);
}
