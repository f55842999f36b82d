/**
 * The full-text expressions `search/query.ts` builds (FTS5 syntax: quoted
 * terms, `"prefix"*`, AND / OR / NOT, parentheses, `body:(…)` column filters)
 * as a PostgreSQL tsquery expression. Every term becomes a bound parameter
 * of `phraseto_tsquery` (a phrase or a word, folded by `lcm_fold` and stemmed
 * by the `lcm_search` configuration exactly like the indexed `tsvector`, see
 * migration 3) or `to_tsquery` with `:*` (a prefix, folded here the same way),
 * combined with the tsquery operators `&&`, `||` and `!!`; no text of the
 * query reaches SQL.
 */
export interface TsQuery {
  /** SQL of one tsquery value; `$n` placeholders start at `firstParam`. */
  sql: string;
  params: string[];
}

type Tok = { t: "(" | ")" | "AND" | "OR" | "NOT" } | { t: "term"; text: string; prefix: boolean };

function tokenize(expression: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < expression.length) {
    const c = expression[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === "(" || c === ")") {
      out.push({ t: c });
      i++;
    } else if (c === '"') {
      let text = "";
      i++;
      while (i < expression.length) {
        if (expression[i] === '"') {
          if (expression[i + 1] === '"') {
            text += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        text += expression[i++];
      }
      const prefix = expression[i] === "*";
      if (prefix) i++;
      out.push({ t: "term", text, prefix });
    } else {
      const m = /^[A-Za-z_]+:?/.exec(expression.slice(i))!;
      const word = m?.[0] ?? c;
      i += word.length;
      if (word.endsWith(":")) continue; // column filter: PostgreSQL indexes one column per table
      if (word === "AND" || word === "OR" || word === "NOT") out.push({ t: word });
      else throw new Error(`unexpected "${word}" in full-text expression`);
    }
  }
  return out;
}

/**
 * Prefix words as `lcm_fold` (migration 3) prepares indexed words: lower case, Latin accents removed,
 * split on anything not a letter or digit, the two revised Porter rules applied. (No `qx0` tail: a prefix
 * must match the longer words too; `prefixQuery` keeps short ones unstemmed instead.)
 */
export function foldWords(text: string): string[] {
  return text
    .toLowerCase()
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((w) => w.replace(/^([a-z]*[aeiouy][b-df-hj-np-tv-xz][a-z]*)bly$/, "$1ble").replace(/^([a-z]*[aeiouy][b-df-hj-np-tv-xz][a-z]*)log(y|ies)$/, "$1log"));
}

/** FTS5's porter stems a prefix term as it stems words, except 1–2 and 64+ character ASCII terms. */
const UNSTEMMED = /^(?:[a-z0-9]{1,2}|[a-z0-9]{65,})$/;

/** `to_tsquery` source text for prefix words: `'w':*` each, AND-ed; null when none. */
function prefixSource(words: string[]): string | null {
  return words.length ? words.map((w) => `'${w.replace(/'/g, "''")}':*`).join(" & ") : null;
}

/**
 * The tsquery of one term; `bind` adds a parameter and returns its placeholder. A word or phrase is a phrase
 * query, or with `positionFree` the AND of its words (which a GIN index answers without reading positions).
 */
function leafSql(text: string, prefix: boolean, bind: (v: string) => string, positionFree = false): string {
  if (!prefix) return `${positionFree ? "plainto_tsquery" : "phraseto_tsquery"}('lcm_search', lcm_fold(${bind(text)}))`;
  // A prefix: every word of it as a prefix lexeme, stemmed like indexed words unless FTS5 would not stem it.
  const words = foldWords(text);
  const parts: string[] = [];
  for (const [config, list] of [["lcm_search", words.filter((w) => !UNSTEMMED.test(w))], ["simple", words.filter((w) => UNSTEMMED.test(w))]] as const) {
    const source = prefixSource(list);
    if (source === null) continue;
    parts.push(`to_tsquery('${config}', ${bind(source)})`);
  }
  return parts.length ? `(${parts.join(" && ")})` : "''::tsquery";
}

/** A binder of parameters numbered from `firstParam`, collected into `params`. */
function binder(params: string[], firstParam: number): (v: string) => string {
  return (v) => {
    params.push(v);
    return `$${firstParam + params.length - 1}`;
  };
}

/**
 * One tsquery per term of `expression` (its quoted words, phrases and prefixes, excluded ones too), each
 * position-free: which terms a row holds, read from the GIN index alone (rank.ts).
 */
export function termTsQueries(expression: string, firstParam = 1): TsQuery[] {
  const out: TsQuery[] = [];
  let next = firstParam;
  for (const tk of tokenize(expression)) {
    if (tk.t !== "term") continue;
    const params: string[] = [];
    const sql = leafSql(tk.text, tk.prefix, binder(params, next), true);
    next += params.length;
    out.push({ sql, params });
  }
  return out;
}

/** Translate `expression`; parameters are numbered from `firstParam`. */
export function toTsQuery(expression: string, firstParam = 1): TsQuery {
  const toks = tokenize(expression);
  const params: string[] = [];
  let pos = 0;
  const leaf = (text: string, prefix: boolean): string => leafSql(text, prefix, binder(params, firstParam));
  const peek = () => toks[pos];
  // FTS5: NOT and AND bind tighter than OR ("a OR b AND c" = "a OR (b AND c)"); "a NOT b" = a AND NOT b.
  const primary = (): string => {
    const tk = toks[pos++];
    if (!tk) throw new Error("full-text expression ends early");
    if (tk.t === "(") {
      const inner = orExpr();
      if (toks[pos++]?.t !== ")") throw new Error("unbalanced parentheses in full-text expression");
      return `(${inner})`;
    }
    if (tk.t === "term") return leaf(tk.text, tk.prefix);
    throw new Error(`unexpected ${tk.t} in full-text expression`);
  };
  const andExpr = (): string => {
    let left = primary();
    for (;;) {
      const tk = peek();
      if (tk?.t === "AND") {
        pos++;
        left = `(${left} && ${primary()})`;
      } else if (tk?.t === "NOT") {
        pos++;
        left = `(${left} && !!${primary()})`;
      } else if (tk && (tk.t === "term" || tk.t === "(")) {
        left = `(${left} && ${primary()})`; // implicit AND, as in FTS5
      } else return left;
    }
  };
  const orExpr = (): string => {
    let left = andExpr();
    while (peek()?.t === "OR") {
      pos++;
      left = `(${left} || ${andExpr()})`;
    }
    return left;
  };
  const sql = orExpr();
  if (pos !== toks.length) throw new Error("unbalanced parentheses in full-text expression");
  return { sql, params };
}

/**
 * Message score for a tsquery match: `ts_rank_cd` with normalisation 32
 * (rank / (rank + 1), in [0, 1)) times 10, which puts one to three matched
 * terms in the range FTS5's negated bm25() gives on the SQLite side, so the
 * search module can merge messages with summaries (scored in JS on BM25's
 * scale) the same way on both stores. The factor is a first calibration, not
 * yet measured against SQLite's ranking on the eval set.
 */
export function rankSql(vector: string, query: string): string {
  return `(10 * ts_rank_cd(${vector}, ${query}, 32))`;
}
