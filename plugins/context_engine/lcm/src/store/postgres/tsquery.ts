/**
 * The full-text expressions `search/query.ts` builds (FTS5 syntax: quoted
 * terms, `"prefix"*`, AND / OR / NOT, parentheses, `body:(…)` column filters)
 * as a PostgreSQL tsquery expression. Every term becomes a bound parameter
 * of `phraseto_tsquery` (a phrase or a word, stemmed like the indexed
 * `tsvector`) or `to_tsquery` with `:*` (a prefix), combined with the
 * tsquery operators `&&`, `||` and `!!`; no text of the query reaches SQL.
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

/** Translate `expression`; parameters are numbered from `firstParam`. */
export function toTsQuery(expression: string, firstParam = 1): TsQuery {
  const toks = tokenize(expression);
  const params: string[] = [];
  let pos = 0;
  const leaf = (text: string, prefix: boolean): string => {
    if (prefix) {
      // A prefix: every word of it stemmed as a prefix lexeme, quoted for to_tsquery's own syntax.
      const words = text.split(/[^\p{L}\p{N}_]+/u).filter(Boolean);
      if (!words.length) return "''::tsquery";
      params.push(words.map((w) => `'${w.replace(/'/g, "''")}':*`).join(" & "));
    } else {
      params.push(text);
    }
    const n = firstParam + params.length - 1;
    return prefix ? `to_tsquery('english', $${n})` : `phraseto_tsquery('english', $${n})`;
  };
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
