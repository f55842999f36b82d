import type Database from "better-sqlite3";
import { FTS_TOKENIZER } from "./schema.js";
import { stmt } from "./statements.js";

/** The tokens FTS5 stores for one message: body-column term frequencies and the row's token count (all columns, bm25's D). */
export interface DocTokens {
  len: number;
  tf: Map<string, number>;
}

/**
 * Tokenise text exactly as `messages_fts` does, by letting FTS5 itself do it:
 * rows go into a temporary FTS5 table with the same tokenizer, and its
 * `fts5vocab` instance view lists every (term, doc, column). Nothing is
 * reimplemented, so stemming and folding can never drift from the index.
 */
export function tokenizeRows(db: Database.Database, rows: ReadonlyArray<{ id: number; body: string; ctag: string }>): Map<number, DocTokens> {
  db.exec(`
    DROP TABLE IF EXISTS temp.lcm_impact_tok_i;
    DROP TABLE IF EXISTS temp.lcm_impact_tok;
    CREATE VIRTUAL TABLE temp.lcm_impact_tok USING fts5 (body, ctag, tokenize='${FTS_TOKENIZER}');
    CREATE VIRTUAL TABLE temp.lcm_impact_tok_i USING fts5vocab(temp, 'lcm_impact_tok', 'instance');
  `);
  try {
    const insert = db.prepare("INSERT INTO temp.lcm_impact_tok (rowid, body, ctag) VALUES (?, ?, ?)");
    for (const r of rows) insert.run(r.id, r.body, r.ctag);
    const out = new Map<number, DocTokens>();
    for (const r of rows) out.set(r.id, { len: 0, tf: new Map() });
    const read = db.prepare("SELECT term, doc, col FROM temp.lcm_impact_tok_i").raw(true);
    for (const [term, doc, col] of read.iterate() as Iterable<[string, number, string]>) {
      const d = out.get(doc)!;
      d.len++;
      if (col === "body") d.tf.set(term, (d.tf.get(term) ?? 0) + 1);
    }
    return out;
  } finally {
    db.exec("DROP TABLE IF EXISTS temp.lcm_impact_tok_i; DROP TABLE IF EXISTS temp.lcm_impact_tok;");
  }
}

/** The body tokens FTS5 makes of a query phrase (one for a plain word; several for "foo-bar"). */
export function phraseTokens(db: Database.Database, phrase: string): string[] {
  db.exec(`
    CREATE VIRTUAL TABLE IF NOT EXISTS temp.lcm_query_tok USING fts5 (body, tokenize='${FTS_TOKENIZER}');
    CREATE VIRTUAL TABLE IF NOT EXISTS temp.lcm_query_tok_i USING fts5vocab(temp, 'lcm_query_tok', 'instance');
  `);
  stmt(db, "INSERT INTO temp.lcm_query_tok (rowid, body) VALUES (1, ?)").run(phrase);
  try {
    return (stmt(db, "SELECT term FROM temp.lcm_query_tok_i ORDER BY offset").all() as Array<{ term: string }>).map((r) => r.term);
  } finally {
    stmt(db, "DELETE FROM temp.lcm_query_tok").run();
  }
}
