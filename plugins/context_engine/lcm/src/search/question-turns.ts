import type { ScoredRow } from "../store/search-types.js";
import { LABEL } from "./feedback.js";
import { stem } from "./snippet.js";

/**
 * Questions ask; answers say. In a conversation the turn that asks about a
 * thing ("What's your favourite dance style?") repeats the thing's words
 * without stating anything about it, while the turn that answers states it
 * (and takes the question's words through the neighbour rule, neighbours.ts).
 * So a message whose query words all sit in sentences ending in "?" scores
 * `ASKED_ONLY_FACTOR` times its own: "Got any fave styles?" drops below
 * "Contemporary dance is so expressive", and a message that says a query word
 * in a statement anywhere ("Dance is my go-to. Got any fave styles?") is left
 * alone. A leading `Name:` speaker label is not part of any sentence (it names
 * the speaker, it does not say anything).
 *
 * In LoCoMo a quarter of all turns end in a question but only an eighth of the
 * evidence turns do, while they made 28 % of lcm_grep's top 10 before this rule.
 */
export const ASKED_ONLY_FACTOR = 0.5;

/**
 * Longest message the rule reads (characters). A longer one (a document, a tool's output) is not a conversational
 * turn that asks, and is left alone; this also bounds the rule's work to this much text per pool message.
 */
export const ASKING_TURN_MAX_CHARS = 2_000;

/**
 * Sentence ends: whitespace after a `.`, `!` or `?` (closing quotes and brackets kept with the sentence), so the dots
 * of `src/a.ts`, `3.5` or `e.g.x` do not split one.
 */
const SENTENCE_END = /(?<=[.!?]["'’”)\]]*)\s+/u;
/** A sentence that asks: it ends in "?" (as `asksQuestion` in neighbours.ts reads a question). */
const ASKS = /\?+["'’”)\]]*\s*$/u;

/** Word runs of a sentence (one module-level expression: a per-query Unicode regex costs a compile per search). */
const WORD = /[\p{L}\p{N}]+/gu;
const ONE_WORD = /^[\p{L}\p{N}]+$/u;

/**
 * The query's words as a sentence test: a word of the sentence that starts with a term's stem (the plural and verb
 * endings the index's stemmer folds, as snippets mark them), or the sentence holding a multi-word term as written.
 */
export interface QueryWords {
  stems: ReadonlySet<string>;
  /** The distinct stem lengths, so a word is tested by a few prefix look-ups whatever the number of terms. */
  lengths: readonly number[];
  phrases: readonly string[];
}

export function queryWords(raw: readonly string[]): QueryWords {
  const terms = raw.map((t) => t.trim().toLowerCase()).filter(Boolean);
  const single = (t: string) => ONE_WORD.test(t);
  const stems = new Set(terms.filter(single).map(stem));
  return { stems, lengths: [...new Set([...stems].map((s) => s.length))], phrases: terms.filter((t) => !single(t)) };
}

function holdsQueryWord(sentence: string, q: QueryWords): boolean {
  const lower = sentence.toLowerCase();
  if (q.phrases.some((p) => lower.includes(p))) return true;
  for (const w of lower.match(WORD) ?? []) for (const n of q.lengths) if (n <= w.length && q.stems.has(w.slice(0, n))) return true;
  return false;
}

/**
 * Whether every sentence of `body` holding a query word asks a question (false when no sentence holds one, and for a
 * body over ASKING_TURN_MAX_CHARS).
 */
export function asksOnly(body: string, q: QueryWords): boolean {
  if (body.length > ASKING_TURN_MAX_CHARS) return false;
  let asked = false;
  for (const sentence of body.replace(LABEL, "").split(SENTENCE_END)) {
    if (!holdsQueryWord(sentence, q)) continue;
    if (!ASKS.test(sentence)) return false;
    asked = true;
  }
  return asked;
}

/**
 * `rows` (best first) with the messages whose query words are only asked about
 * scored ×ASKED_ONLY_FACTOR and re-sorted (ties: newest first, as the store
 * ranks); `rows` itself when none is.
 */
export function discountAskedOnly(rows: readonly ScoredRow[], bodies: ReadonlyMap<number, string>, raw: readonly string[]): readonly ScoredRow[] {
  const q = queryWords(raw);
  if (!q.stems.size && !q.phrases.length) return rows;
  let changed = false;
  const scored = rows.map((r) => {
    if (!asksOnly(bodies.get(r.rowid) ?? "", q)) return r;
    changed = true;
    return { ...r, score: r.score * ASKED_ONLY_FACTOR };
  });
  if (!changed) return rows;
  return scored.sort((a, b) => b.score - a.score || b.createdAt - a.createdAt || b.rowid - a.rowid);
}
