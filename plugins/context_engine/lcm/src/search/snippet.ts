/**
 * Snippets built in JS from the stored text. FTS5's snippet() re-reads and
 * re-tokenizes every document through the content view (over a millisecond a
 * hit); this finds the query words directly, allowing the plural/verb endings
 * the porter stemmer also folds together.
 */
export function stem(word: string): string {
  const w = word.toLowerCase();
  for (const suffix of ["ing", "ies", "es", "ed", "s"]) {
    if (w.length > suffix.length + 3 && w.endsWith(suffix)) return w.slice(0, -suffix.length);
  }
  return w;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A case-insensitive matcher for the query terms (each matched at a word start). */
export function termMatcher(terms: readonly string[]): RegExp | null {
  const parts = terms
    .map((t) => t.trim())
    .filter((t) => t.length > 0)
    .map((t) => {
      const isWordy = /^[\p{L}\p{N}_]/u.test(t) && !/[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/.test(t);
      const body = escapeRe(t.includes(" ") ? t : stem(t)).replace(/\s+/g, "\\s+");
      return isWordy ? `(?<![\\p{L}\\p{N}])${body}[\\p{L}\\p{N}]*` : body;
    });
  if (parts.length === 0) return null;
  // Longest first so a phrase wins over its own words.
  parts.sort((a, b) => b.length - a.length);
  return new RegExp(parts.join("|"), "giu");
}

/**
 * A window of about `chars` characters around the densest cluster of matches,
 * matches marked «like this», whitespace collapsed.
 */
export function buildSnippet(text: string, matcher: RegExp | null, chars = 160): string {
  if (!text) return "";
  const hits: Array<[number, number]> = [];
  if (matcher) {
    matcher.lastIndex = 0;
    for (let m = matcher.exec(text); m && hits.length < 200; m = matcher.exec(text)) {
      if (m[0].length === 0) {
        matcher.lastIndex++;
        continue;
      }
      hits.push([m.index, m.index + m[0].length]);
    }
  }
  let start = 0;
  if (hits.length) {
    // The window start that covers the most hits.
    let best = 0;
    let bestCount = 0;
    for (let i = 0, j = 0; i < hits.length; i++) {
      while (j < hits.length && hits[j]![1] - hits[i]![0] <= chars) j++;
      if (j - i > bestCount) {
        bestCount = j - i;
        best = i;
      }
    }
    const first = hits[best]![0];
    start = Math.max(0, first - Math.floor(chars / 4));
  }
  const end = Math.min(text.length, start + chars);
  let out = "";
  let pos = start;
  for (const [a, b] of hits) {
    if (b <= start || a >= end) continue;
    const s = Math.max(a, start);
    const e = Math.min(b, end);
    out += `${text.slice(pos, s)}«${text.slice(s, e)}»`;
    pos = e;
  }
  out += text.slice(pos, end);
  return `${start > 0 ? "…" : ""}${out}${end < text.length ? "…" : ""}`.replace(/\s+/g, " ").trim();
}
