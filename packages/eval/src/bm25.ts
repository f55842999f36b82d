import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The floor: plain SQLite FTS5 (default unicode61 tokenizer, built-in bm25())
 * over the same turns, in a temporary database, the query's content words
 * each quoted and OR-ed.
 */
export class Bm25Floor {
  readonly #dir = mkdtempSync(join(tmpdir(), "ce-eval-bm25-"));
  readonly #db = new Database(join(this.#dir, "floor.sqlite"));

  constructor(docs: ReadonlyArray<{ id: string; text: string }>) {
    this.#db.exec("CREATE VIRTUAL TABLE docs USING fts5(text, id UNINDEXED)");
    const insert = this.#db.prepare("INSERT INTO docs (text, id) VALUES (?, ?)");
    this.#db.transaction(() => {
      for (const d of docs) insert.run(d.text, d.id);
    })();
  }

  /** Ids of the best `limit` docs (ties broken by insertion order, so runs repeat). */
  search(words: readonly string[], limit = 10): string[] {
    if (words.length === 0) return [];
    const match = words.map((w) => `"${w.replace(/"/g, '""')}"`).join(" OR ");
    const rows = this.#db.prepare("SELECT id FROM docs WHERE docs MATCH ? ORDER BY bm25(docs), rowid LIMIT ?").all(match, limit) as Array<{ id: string }>;
    return rows.map((r) => r.id);
  }

  close(): void {
    this.#db.close();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
