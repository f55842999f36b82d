import { FLAG_HAS_PARTS } from "../store/codec.js";
import { stmt } from "../store/statements.js";
import type { SqliteLcmStore } from "../store/sqlite-store.js";
import { termMatcher } from "./snippet.js";

/**
 * BM25 computed here instead of FTS5's bm25(): FTS5 derives each term's IDF by
 * walking the term's whole doclist on every query (tens of milliseconds for a
 * common word at a million rows). Here document frequencies are counted within
 * the search scope (cheap with the id-range bound) and term frequencies are
 * read from the candidate texts, so ranking costs O(candidates).
 */
export interface RankInput {
  store: SqliteLcmStore;
  rowids: readonly number[];
  /** Raw terms as typed (words or phrases). */
  terms: readonly string[];
  /** Document frequency of each term in scope, and the number of documents in scope. */
  df: readonly number[];
  docs: number;
}

const K1 = 1.2;
const B = 0.75;

/** The searchable body of a message without going through the content view (fast path). */
export function fastBody(store: SqliteLcmStore, id: number): string {
  const db = store.db;
  const r = stmt(db, "SELECT text, payload, flags FROM messages WHERE id = ?").get(id) as
    | { text: string | null; payload: string | null; flags: number }
    | undefined;
  if (!r) return "";
  let text = r.text ?? (r.payload ? ((stmt(db, "SELECT CAST(data AS TEXT) AS t FROM payloads WHERE hash = ?").get(r.payload) as { t: string } | undefined)?.t ?? "") : "");
  if (r.flags & FLAG_HAS_PARTS) {
    for (const p of stmt(db, "SELECT name, body, payload FROM message_parts WHERE message_id = ? AND kind = 1 ORDER BY ordinal").all(id) as Array<{
      name: string | null;
      body: string | null;
      payload: string | null;
    }>) {
      const body = p.body ?? (p.payload ? ((stmt(db, "SELECT CAST(data AS TEXT) AS t FROM payloads WHERE hash = ?").get(p.payload) as { t: string } | undefined)?.t ?? "") : "");
      text += `\n${p.name ?? ""} ${body}`;
    }
  }
  return text;
}

/** Bodies of many messages in two statements (one call per table instead of one per row). */
export function fastBodies(store: SqliteLcmStore, ids: readonly number[]): Map<number, string> {
  const db = store.db;
  const json = JSON.stringify(ids);
  const out = new Map<number, string>();
  const needParts: number[] = [];
  for (const r of stmt(
    db,
    `SELECT m.id AS id, COALESCE(m.text, (SELECT CAST(p.data AS TEXT) FROM payloads p WHERE p.hash = m.payload), '') AS text, m.flags AS flags
     FROM json_each(?) j JOIN messages m ON m.id = j.value`,
  ).iterate(json) as Iterable<{ id: number; text: string; flags: number }>) {
    out.set(r.id, r.text);
    if (r.flags & FLAG_HAS_PARTS) needParts.push(r.id);
  }
  if (needParts.length) {
    for (const p of stmt(
      db,
      `SELECT mp.message_id AS id, mp.name AS name, COALESCE(mp.body, (SELECT CAST(p.data AS TEXT) FROM payloads p WHERE p.hash = mp.payload), '') AS body
       FROM message_parts mp WHERE mp.message_id IN (SELECT value FROM json_each(?)) AND mp.kind = 1 ORDER BY mp.message_id, mp.ordinal`,
    ).iterate(JSON.stringify(needParts)) as Iterable<{ id: number; name: string | null; body: string }>) {
      out.set(p.id, `${out.get(p.id) ?? ""}\n${p.name ?? ""} ${p.body}`);
    }
  }
  return out;
}

export function bm25Scores(input: RankInput): Map<number, number> {
  const matchers = input.terms.map((t) => termMatcher([t]));
  const docs = Math.max(1, input.docs);
  const idf = input.df.map((df) => Math.log((docs - df + 0.5) / (df + 0.5) + 1));
  const rows: Array<{ id: number; tf: number[]; len: number }> = [];
  let totalLen = 0;
  const bodies = fastBodies(input.store, input.rowids);
  for (const id of input.rowids) {
    const body = bodies.get(id) ?? "";
    const len = Math.max(1, body.length / 6);
    totalLen += len;
    const tf = matchers.map((m) => {
      if (!m) return 0;
      m.lastIndex = 0;
      let n = 0;
      while (m.exec(body) && n < 1000) n++;
      return n;
    });
    rows.push({ id, tf, len });
  }
  const avg = rows.length ? totalLen / rows.length : 1;
  const out = new Map<number, number>();
  for (const r of rows) {
    let score = 0;
    r.tf.forEach((tf, i) => {
      if (tf > 0) score += idf[i]! * ((tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * r.len) / avg)));
    });
    out.set(r.id, score);
  }
  return out;
}
