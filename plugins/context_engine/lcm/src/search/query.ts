import { CJK_RE } from "../store/codec.js";

/** Maximal runs of CJK characters (the class of `CJK_RE`). */
const CJK_RUNS = new RegExp(`${CJK_RE.source}+`, "g");
import { isStopWord } from "./stop-words.js";

/**
 * Turn what an agent typed into safe FTS5 syntax.
 *
 * - Every word is quoted (no syntax errors, no operator injection).
 * - `"exact phrases"` stay phrases; `term*` is a prefix search.
 * - `-word` and `NOT word` exclude a word from the whole result.
 * - Words are OR-ed by default (BM25 ranks messages with more and rarer words
 *   first); an upper-case `AND` between two words requires both, `OR` is the
 *   default made explicit. FTS5 precedence holds: AND binds tighter than OR.
 * - Stop words and question words (see stop-words.ts) are dropped from
 *   unquoted words, unless nothing else would remain.
 */
export interface ParsedQuery {
  /** OR of AND-groups of positive terms, each quoted for FTS5 (a prefix ends with `*`). */
  groups: string[][];
  /** Every positive term of `groups`, flattened, in order (one BM25 phrase each). */
  terms: string[];
  /** Excluded terms, quoted. */
  excluded: string[];
  /** Raw (unquoted) positive terms, for the CJK/trigram path, snippets and summary scoring. */
  raw: string[];
  /** Stop words and question words that were dropped. */
  dropped: string[];
  hasCjk: boolean;
}

const TOKEN_RE = /(-?)"([^"]*)"?|(\S+)/g;

/** Longest query accepted (characters), on every store: a bound on parsing and on the database's work. */
export const MAX_QUERY_CHARS = 4_000;
/** Most terms (searched and excluded) in one query; each is a phrase the index looks up and ranks. */
export const MAX_QUERY_TERMS = 64;

/**
 * Control characters (NUL above all, which PostgreSQL text cannot hold) separate words, as FTS5's
 * unicode61 tokenizer reads them: "hel\0lo" searches "hel" and "lo", on every store.
 */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/** Refuse a query over the size bounds, with what to do about it. */
export function checkQuerySize(input: string): void {
  if (input.length > MAX_QUERY_CHARS) throw new Error(`query is ${input.length} characters long; at most ${MAX_QUERY_CHARS} are searched (use fewer, rarer words)`);
}

export function quote(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

// Characters that carry no searchable content for unicode61.
const ONLY_PUNCT = /^[\p{P}\p{S}\s]*$/u;

type Token =
  | { kind: "op"; op: "AND" | "OR" | "NOT" }
  | { kind: "term"; fts: string; raw: string; negative: boolean; plain: boolean };

function tokenize(input: string): Token[] {
  const out: Token[] = [];
  TOKEN_RE.lastIndex = 0;
  for (let m = TOKEN_RE.exec(input); m; m = TOKEN_RE.exec(input)) {
    if (m[2] !== undefined) {
      const phrase = m[2].trim();
      if (!phrase || ONLY_PUNCT.test(phrase)) continue;
      out.push({ kind: "term", fts: quote(phrase), raw: phrase, negative: m[1] === "-", plain: false });
      continue;
    }
    let word = m[3] ?? "";
    if (word === "AND" || word === "OR" || word === "NOT") {
      out.push({ kind: "op", op: word });
      continue;
    }
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
    // Edge punctuation is noise ("error:", "(foo)", "why?"); inner punctuation is kept (paths, identifiers).
    word = word.replace(/^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu, (s) => (/[_$#@]/.test(s) ? s : ""));
    if (!word || ONLY_PUNCT.test(word)) continue;
    out.push({ kind: "term", fts: prefix ? `${quote(word)}*` : quote(word), raw: word, negative, plain: !prefix });
  }
  return out;
}

export function parseQuery(rawInput: string, options: { keepStopWords?: boolean } = {}): ParsedQuery {
  checkQuerySize(rawInput);
  const input = rawInput.replace(CONTROL, " ");
  const tokens = tokenize(input);
  const terms = tokens.filter((t) => t.kind === "term").length;
  if (terms > MAX_QUERY_TERMS) throw new Error(`query has ${terms} terms; at most ${MAX_QUERY_TERMS} are searched at once (use fewer, rarer words)`);
  const positives = tokens.filter((t): t is Extract<Token, { kind: "term" }> => t.kind === "term" && !t.negative);
  // Drop stop words only if something meaningful remains ("the" alone is still searched).
  const drop = (t: Extract<Token, { kind: "term" }>) => !options.keepStopWords && t.plain && isStopWord(t.raw);
  const anyContent = positives.some((t) => !drop(t));
  const groups: string[][] = [];
  const raw: string[] = [];
  const excluded: string[] = [];
  const dropped: string[] = [];
  let current: string[] = [];
  let pendingAnd = false;
  let pendingNot = false;
  for (const t of tokens) {
    if (t.kind === "op") {
      if (t.op === "NOT") pendingNot = true;
      else if (t.op === "AND") pendingAnd = current.length > 0;
      else pendingAnd = false;
      continue;
    }
    if (t.negative || pendingNot) {
      pendingNot = false;
      excluded.push(t.fts);
      continue;
    }
    if (anyContent && drop(t)) {
      dropped.push(t.raw);
      continue;
    }
    if (!pendingAnd && current.length) {
      groups.push(current);
      current = [];
    }
    pendingAnd = false;
    current.push(t.fts);
    raw.push(t.raw);
  }
  if (current.length) groups.push(current);
  // The trigram path serves searched CJK words; a CJK word that is only excluded stays a full-text exclusion
  // (SQLite's trigram index holds only rows with CJK, so routing such a query there would lose the rest).
  return { groups, terms: groups.flat(), excluded, raw, dropped, hasCjk: raw.some((t) => CJK_RE.test(t)) };
}

/** FTS5 expression over the body column: the OR of the AND-groups, minus exclusions. */
export function ftsExpression(q: Pick<ParsedQuery, "groups" | "excluded">): string {
  const or = q.groups.map((g) => (g.length > 1 ? `(${g.join(" AND ")})` : g[0]!)).join(" OR ");
  let body = `body:(${or})`;
  if (q.excluded.length) body = `${body} NOT body:(${q.excluded.join(" OR ")})`;
  return body;
}

/** One term alone, for its document frequency. */
export function termExpression(term: string): string {
  return `body:(${term})`;
}

/** For the trigram index: the CJK runs of at least 3 characters of each term, quoted; every other term needs a substring test. */
export function trigramParts(q: ParsedQuery): { match: string | null; like: string[] } {
  const long: string[] = [];
  const like: string[] = [];
  for (const t of q.raw) {
    // SQLite's trigram index holds the CJK runs of a message (one per line), so only the CJK runs of a term
    // can be matched there; a term that is anything but one such run is also checked as a substring.
    const runs = t.match(CJK_RUNS) ?? [];
    for (const r of runs) if ([...r].length >= 3) long.push(quote(r));
    if (runs.length !== 1 || runs[0] !== t || [...t].length < 3) like.push(t);
  }
  return { match: long.length ? [...new Set(long)].join(" AND ") : null, like };
}
