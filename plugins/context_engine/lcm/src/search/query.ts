import { CJK_RE } from "../store/codec.js";

/**
 * Turn what an agent typed into safe FTS5 syntax. Every term is quoted (no
 * syntax errors, no operator injection); `"exact phrases"` stay phrases;
 * `term*` keeps a prefix search; a leading `-` excludes a term.
 */
export interface ParsedQuery {
  /** Positive terms/phrases, already quoted for FTS5 (may end with `*`). */
  terms: string[];
  /** Excluded terms, quoted. */
  excluded: string[];
  /** Raw (unquoted) positive terms, for the CJK/trigram path and snippets. */
  raw: string[];
  hasCjk: boolean;
}

const TOKEN_RE = /(-?)"([^"]*)"|(\S+)/g;

function quote(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

// Characters that carry no searchable content for unicode61.
const ONLY_PUNCT = /^[\p{P}\p{S}\s]*$/u;

export function parseQuery(input: string): ParsedQuery {
  const terms: string[] = [];
  const excluded: string[] = [];
  const raw: string[] = [];
  TOKEN_RE.lastIndex = 0;
  for (let m = TOKEN_RE.exec(input); m; m = TOKEN_RE.exec(input)) {
    if (m[2] !== undefined) {
      const phrase = m[2].trim();
      if (!phrase || ONLY_PUNCT.test(phrase)) continue;
      if (m[1]) excluded.push(quote(phrase));
      else {
        terms.push(quote(phrase));
        raw.push(phrase);
      }
      continue;
    }
    let word = m[3] ?? "";
    let negative = false;
    if (word.startsWith("-") && word.length > 1) {
      negative = true;
      word = word.slice(1);
    }
    let prefix = false;
    if (word.endsWith("*") && word.length > 1) {
      prefix = true;
      word = word.replace(/\*+$/, "");
    }
    // Edge punctuation is noise ("error:", "(foo)"); inner punctuation is kept (paths, identifiers).
    word = word.replace(/^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu, (s) => (/[_$#@]/.test(s) ? s : ""));
    if (!word || ONLY_PUNCT.test(word)) continue;
    if (negative) excluded.push(quote(word));
    else {
      terms.push(prefix ? `${quote(word)}*` : quote(word));
      raw.push(word);
    }
  }
  return { terms, excluded, raw, hasCjk: CJK_RE.test(input) };
}

/** FTS5 expression over the body column: all terms (AND) or any (OR), minus exclusions. */
export function ftsExpression(q: ParsedQuery, op: "AND" | "OR", ctag: string | null): string {
  let body = `body:(${q.terms.join(` ${op} `)})`;
  if (q.excluded.length) body = `${body} NOT body:(${q.excluded.join(" OR ")})`;
  return ctag ? `ctag:${quote(ctag)} AND ${body}` : body;
}

/** For the trigram index: terms of at least 3 characters, quoted; shorter ones need LIKE. */
export function trigramParts(q: ParsedQuery): { match: string | null; like: string[] } {
  const long: string[] = [];
  const like: string[] = [];
  for (const t of q.raw) {
    if ([...t].length >= 3) long.push(quote(t));
    else like.push(t);
  }
  return { match: long.length ? long.join(" AND ") : null, like };
}
