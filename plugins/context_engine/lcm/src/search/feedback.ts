import type { LcmSearchStore } from "../store/search-types.js";
import { quote, termExpression } from "./query.js";
import { isStopWord } from "./stop-words.js";

/**
 * Pseudo-relevance feedback: the best first-round messages name the things
 * the question is about (people, places, events, dates) in the words the
 * conversation uses; their rarest shared words make a second query that finds
 * evidence phrased unlike the question (multi-hop questions whose parts sit
 * in different messages). Terms are chosen as in RM3: each word of the top
 * messages weighs its share of each message (weighted by the message's rank
 * score) times its rarity in the whole index.
 */
export interface FeedbackOptions {
  /** First-round messages read for expansion words. */
  docs: number;
  /** Expansion words added to the second round. */
  terms: number;
}

export const DEFAULT_FEEDBACK: FeedbackOptions = { docs: 5, terms: 5 };

const WORD = /[\p{L}\p{N}]+/gu;
/** A leading `Name:` label of a transcript line (one to three capitalised words): the speaker, not what the message is about. */
export const LABEL = /^\s*([\p{Lu}][\p{L}\p{M}'’.-]*(?: [\p{Lu}][\p{L}\p{M}'’.-]*){0,2}):\s/u;

export function authorLabel(body: string): string[] {
  const m = LABEL.exec(body.slice(0, 80));
  return m ? m[1]!.toLowerCase().split(" ") : [];
}

function words(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []).filter((w) => w.length >= 3 && !isStopWord(w) && !/^\d{1,2}$/.test(w));
}

/** Crude plural/verb-ending fold, so "painting" does not expand "paint" (the index's porter stemmer folds more). */
function fold(word: string): string {
  for (const suffix of ["ing", "ies", "es", "ed", "s"]) if (word.length > suffix.length + 3 && word.endsWith(suffix)) return word.slice(0, -suffix.length);
  return word;
}

export async function expansionTerms(
  search: LcmSearchStore,
  top: ReadonlyArray<{ body: string; score: number }>,
  queryWords: readonly string[],
  options: FeedbackOptions = DEFAULT_FEEDBACK,
): Promise<string[]> {
  const known = new Set(queryWords.map((w) => fold(w.toLowerCase())));
  const docs = top.slice(0, options.docs);
  if (docs.length < 2) return [];
  const maxScore = Math.max(...docs.map((d) => d.score), 1e-9);
  const weight = new Map<string, number>();
  const seenIn = new Map<string, number>();
  for (const d of docs) {
    const author = new Set(authorLabel(d.body));
    const ws = words(d.body).filter((w) => !author.has(w) && !known.has(fold(w)));
    if (!ws.length) continue;
    const tf = new Map<string, number>();
    for (const w of ws) tf.set(w, (tf.get(w) ?? 0) + 1);
    for (const [w, n] of tf) {
      weight.set(w, (weight.get(w) ?? 0) + (n / ws.length) * (d.score / maxScore));
      seenIn.set(w, (seenIn.get(w) ?? 0) + 1);
    }
  }
  const n = Math.max(1, (await search.messageCorpus()).docs);
  const scored: Array<[string, number]> = [];
  for (const [w, p] of weight) {
    const df = await search.documentFrequency(termExpression(quote(w)));
    if (df <= 1) continue; // a word only the one message holds finds nothing new
    const idf = Math.log((n - df + 0.5) / (df + 0.5));
    if (idf <= 0) continue;
    scored.push([w, p * idf]);
  }
  scored.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const out: string[] = [];
  const folded = new Set<string>();
  for (const [w] of scored) {
    if (folded.has(fold(w))) continue;
    folded.add(fold(w));
    out.push(w);
    if (out.length >= options.terms) break;
  }
  return out;
}
