import type Database from "better-sqlite3";
import { IMPACT } from "./impact-index.js";
import type { Posting } from "./impact-skyline.js";
import { phraseTokens } from "./impact-tokens.js";
import { stmt } from "./statements.js";

/** FTS5's bm25 constants (fts5_aux.c). */
const K1 = 1.2;
const B = 0.75;
/** Relative margin for the difference between this file's arithmetic and FTS5's own (both doubles, same formula). */
const EPS = 1e-9;

/** Exact scores (negated bm25 of the expression, as FTS5 computes it) of some messages. */
export type ExactScores = (ids: readonly number[]) => Map<number, number>;

interface TermList {
  /** Kept postings, best first by the term's own bm25 (ties: higher id first). */
  rows: Array<Posting & { s: number }>;
  /** The list holds every matching message. */
  complete: boolean;
}

/**
 * The `need` best messages of one conversation for an OR of plain words,
 * exactly as `ORDER BY bm25(...), rowid DESC` ranks them, from the impact
 * lists (impact-index.ts); null when the lists cannot prove the answer (the
 * caller then ranks with FTS5). Scores of the answer are FTS5's own.
 *
 * One word: its list holds its best IMPACT.k in every corpus state, so the
 * top `need` is the top of the list (candidates within EPS of the cut are
 * rescored by FTS5 so that float differences cannot move the cut). Several
 * words: every kept posting is a candidate, and a message in no list scores
 * at most the sum of each truncated list's lowest score (with an idf that is
 * an upper bound: document frequency in this conversation ≤ in the index);
 * when the need-th best candidate beats that, no other message can enter.
 */
export function impactTopK(db: Database.Database, expression: string, conversationId: number, hiId: number, need: number, exact: ExactScores): Array<{ rowid: number; score: number }> | null {
  if (need > IMPACT.k) return null;
  const phrases = plainPhrases(expression);
  if (!phrases) return null;
  const state = stmt(db, "SELECT upto FROM impact_conversations WHERE conversation_id = ?").get(conversationId) as { upto: number } | undefined;
  if (!state || state.upto < hiId) return null;
  const stats = corpusStats(db);
  if (!stats) return null;
  const lists: TermList[] = [];
  const idf: number[] = [];
  for (const p of phrases) {
    const tokens = phraseTokens(db, p);
    if (tokens.length !== 1) return null;
    const t = loadList(db, conversationId, tokens[0]!, stats.avgdl);
    lists.push(t.list);
    idf.push(Math.max(1e-6, Math.log((stats.rows - t.df + 0.5) / (t.df + 0.5))));
  }
  return lists.length === 1 ? oneTerm(lists[0]!, need, exact) : threshold(lists, idf, need, exact);
}

function oneTerm(list: TermList, need: number, exact: ExactScores): Array<{ rowid: number; score: number }> {
  const rows = list.rows;
  const cut = rows.length > need ? rows[need - 1]!.s * (1 - EPS) : -Infinity;
  const ids = rows.filter((r) => r.s >= cut).map((r) => r.id);
  return ranked(ids, exact).slice(0, need);
}

function threshold(lists: TermList[], idf: number[], need: number, exact: ExactScores): Array<{ rowid: number; score: number }> | null {
  // Every kept posting is a candidate: one exact scoring (its cost is FTS5 reading the words' doclists once,
  // whatever the number of candidates). A message in no list scores at most the sum, over the lists that do
  // not hold all their matches, of the list's last (lowest) score.
  // With two or more truncated lists the bound is their floors' sum, which the best candidates seldom beat
  // (measured at 1M: the proof failed for two common words); FTS5 ranks those at once instead.
  if (lists.filter((l) => !l.complete).length > 1) return null;
  const floor = lists.map((l, i) => (l.complete ? 0 : idf[i]! * (l.rows[l.rows.length - 1]?.s ?? 0)));
  const bound = floor.reduce((a, b) => a + b, 0);
  if (bound > 0) {
    // Proof is possible only if `need` candidates can beat the bound even at their most (listed scores plus
    // the floor of each list they are missing from); checked before paying for the exact scores.
    const upper = new Map<number, number>();
    for (const [i, l] of lists.entries()) for (const r of l.rows) upper.set(r.id, (upper.get(r.id) ?? bound) - floor[i]! + idf[i]! * r.s);
    let above = 0;
    for (const u of upper.values()) if (u > bound * (1 + EPS)) above++;
    if (above < need) return null;
  }
  const best = ranked([...new Set(lists.flatMap((l) => l.rows.map((r) => r.id)))], exact);
  if (bound === 0 || (best.length >= need && best[need - 1]!.score > bound * (1 + EPS))) return best.slice(0, need);
  return null;
}

function ranked(ids: readonly number[], exact: ExactScores): Array<{ rowid: number; score: number }> {
  const scores = exact(ids);
  return [...scores].map(([rowid, score]) => ({ rowid, score })).sort((a, b) => b.score - a.score || b.rowid - a.rowid);
}

function loadList(db: Database.Database, conversationId: number, term: string, avgdl: number): { list: TermList; df: number } {
  const t = stmt(db, "SELECT df, kept FROM impact_terms WHERE conversation_id = ? AND term = ?").get(conversationId, term) as { df: number; kept: number } | undefined;
  if (!t) return { list: { rows: [], complete: true }, df: 0 };
  const postings = stmt(db, "SELECT message_id AS id, tf, len FROM impact_postings WHERE conversation_id = ? AND term = ?").all(conversationId, term) as Posting[];
  const rows = postings.map((p) => ({ ...p, s: termScore(p.tf, p.len, avgdl) })).sort((a, b) => b.s - a.s || b.id - a.id);
  return { list: { rows, complete: t.kept === t.df }, df: t.df };
}

/** One term's bm25 factor without its idf, in FTS5's order of operations. */
function termScore(tf: number, len: number, avgdl: number): number {
  return (tf * (K1 + 1.0)) / (tf + K1 * (1 - B + (B * len) / avgdl));
}

/** `body:("a" OR "b" …)` with plain quoted words only (no prefix, AND, NOT): the phrases, unquoted; otherwise null. */
export function plainPhrases(expression: string): string[] | null {
  const m = /^body:\((.*)\)$/s.exec(expression);
  if (!m) return null;
  const out: string[] = [];
  const re = /"((?:[^"]|"")*)"(?: OR |$)/y;
  let at = 0;
  const inner = m[1]!;
  while (at < inner.length) {
    re.lastIndex = at;
    const p = re.exec(inner);
    if (!p) return null;
    out.push(p[1]!.replace(/""/g, '"'));
    at = re.lastIndex;
  }
  return out.length ? out : null;
}

/** Rows and average row length of messages_fts, from FTS5's own averages record (what bm25 reads). */
function corpusStats(db: Database.Database): { rows: number; avgdl: number } | null {
  const r = stmt(db, "SELECT block FROM messages_fts_data WHERE id = 1").get() as { block: Buffer } | undefined;
  if (!r) return null;
  const values: number[] = [];
  for (let at = 0; at < r.block.length; ) {
    const [v, next] = varint(r.block, at);
    values.push(v);
    at = next;
  }
  const rows = values[0] ?? 0;
  const tokens = values.slice(1).reduce((a, b) => a + b, 0);
  return rows > 0 ? { rows, avgdl: tokens / rows } : null;
}

/** SQLite's varint (big-endian groups of 7 bits, the ninth byte whole), as FTS5 writes its records. */
function varint(buf: Buffer, at: number): [number, number] {
  let v = 0;
  for (let i = 0; i < 8; i++) {
    const b = buf[at + i]!;
    v = v * 128 + (b & 0x7f);
    if ((b & 0x80) === 0) return [v, at + i + 1];
  }
  return [v * 256 + buf[at + 8]!, at + 9];
}
