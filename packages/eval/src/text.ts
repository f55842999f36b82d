/**
 * Text rules of the eval, all deterministic and documented in the README.
 *
 * Content words of a question: lower-cased runs of letters/digits (an
 * apostrophe suffix such as 's is dropped), minus the stop words below
 * (English function words and question words), minus one-letter tokens,
 * first occurrence order, duplicates removed.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all am an and any are aren as at be because been before being below between both but by " +
    "can could did didn do does doesn doing don down during each few for from further had has have having he her here hers herself " +
    "him himself his how i if in into is isn it its itself just let me more most my myself no nor not now of off on once only or " +
    "other ought our ours ourselves out over own same she should so some such than that the their theirs them themselves then there " +
    "these they this those through to too under until up very was wasn we were weren what when where which while who whom whose why " +
    "will with won would you your yours yourself yourselves ever also kind likely might may must shall much many does did done get got " +
    "s t d ll m re ve"
  ).split(/\s+/),
);

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

/** Lower-cased word tokens of `text` (apostrophe suffixes removed). */
export function wordTokens(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(WORD)) out.push(m[0].replace(/['’][\p{L}]+$/u, ""));
  return out;
}

/** The content-word rule (see the module comment). */
export function contentWords(text: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const w of wordTokens(text)) {
    if (w.length < 2 || STOP_WORDS.has(w) || seen.has(w)) continue;
    seen.add(w);
    out.push(w);
  }
  return out;
}

/** Whitespace collapsed, for verbatim containment checks. */
export function normalizeSpace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Text as a verbatim check compares it: Markdown quote prefixes (`> `) dropped, whitespace collapsed. */
export function comparable(text: string): string {
  return normalizeSpace(text.replace(/^[ \t]*> ?/gm, ""));
}
