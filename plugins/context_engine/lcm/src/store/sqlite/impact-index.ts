import type Database from "better-sqlite3";
import { tokenizeRows } from "./impact-tokens.js";
import { skyline, type Posting } from "./impact-skyline.js";
import { stmt } from "./statements.js";

/**
 * Impact postings: for each term of a large conversation, the postings that
 * can still be among its best IMPACT.k under bm25 (impact-skyline.ts), so the
 * top of a common word is read from a few hundred rows instead of scoring all
 * of its matches (impact-rank.ts). Kept beside FTS5, built from FTS5's own
 * tokens, and only for conversations of at least IMPACT.minMessages messages:
 * below that FTS5 ranks every match fast enough, and small conversations pay
 * no storage for it.
 *
 *   impact_conversations(upto): messages of the conversation with id ≤ upto are in; -1 = rebuild
 *   impact_terms(df, kept, cuts): the term's matching messages, how many postings are kept (kept = df: all),
 *     and cuts[t-1]: the k-th shortest kept row at tf ≥ t (a new posting at tf t that is longer cannot enter)
 *   impact_postings: the kept postings
 */
export const IMPACT_TABLES = `
  CREATE TABLE IF NOT EXISTS impact_conversations (conversation_id INTEGER PRIMARY KEY, upto INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS impact_terms (
    conversation_id INTEGER NOT NULL, term TEXT NOT NULL, df INTEGER NOT NULL, kept INTEGER NOT NULL, cuts TEXT,
    PRIMARY KEY (conversation_id, term)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS impact_postings (
    conversation_id INTEGER NOT NULL, term TEXT NOT NULL, message_id INTEGER NOT NULL, tf INTEGER NOT NULL, len INTEGER NOT NULL,
    PRIMARY KEY (conversation_id, term, message_id)
  ) WITHOUT ROWID;
  -- A deleted message may have hidden others behind it: the conversation's lists are rebuilt.
  CREATE TRIGGER IF NOT EXISTS impact_forget AFTER DELETE ON messages
    WHEN old.id <= (SELECT upto FROM impact_conversations WHERE conversation_id = old.conversation_id)
    BEGIN UPDATE impact_conversations SET upto = -1 WHERE conversation_id = old.conversation_id; END;
`;

/** Settings (tests lower minMessages to reach the fast path on small corpora). */
export const IMPACT = {
  /**
   * Conversations with fewer messages are ranked by FTS5 alone: at 100,000 messages FTS5 ranks a word in a fifth
   * of them in ~17 ms, while building the lists of a 100,000-message agent conversation costs ~28 s of background
   * CPU and 5 % of the database.
   */
  minMessages: 200_000,
  /** Depth of every list: a page end (offset + limit + 1) up to this is answered from the lists. */
  k: 128,
  /** Messages tokenised per transaction at most (about 50 µs each); a short call takes fewer. */
  batch: 2_000,
};

/**
 * Bring the impact postings of every large conversation up to the indexed
 * messages, for at most `maxMs`. Returns whether everything is caught up.
 * Only messages FTS5 already holds are read (ids below the first still queued).
 */
export function catchUpImpacts(db: Database.Database, maxMs: number): boolean {
  const deadline = performance.now() + maxMs;
  const pending = stmt(db, "SELECT min(message_id) AS id FROM fts_pending").get() as { id: number | null };
  const limitId = pending.id == null ? Number.MAX_SAFE_INTEGER : pending.id - 1;
  dropSmallConversations(db);
  const big = stmt(db, "SELECT id FROM conversations WHERE message_count >= ?").all(IMPACT.minMessages) as Array<{ id: number }>;
  for (const { id } of big) {
    for (;;) {
      if (performance.now() >= deadline) return false;
      // About 20 messages per millisecond of budget, so a 4 ms slice stays near its budget.
      const rows = Math.max(16, Math.min(IMPACT.batch, Math.floor((deadline - performance.now()) * 20)));
      if (!catchUpBatch(db, id, limitId, rows)) break;
    }
  }
  return true;
}

/** Lists of conversations deleted or now under the size bound take no space. */
function dropSmallConversations(db: Database.Database): void {
  const gone = stmt(
    db,
    "SELECT conversation_id AS id FROM impact_conversations WHERE conversation_id NOT IN (SELECT id FROM conversations WHERE message_count >= ?)",
  ).all(IMPACT.minMessages) as Array<{ id: number }>;
  for (const { id } of gone) {
    db.transaction(() => {
      stmt(db, "DELETE FROM impact_postings WHERE conversation_id = ?").run(id);
      stmt(db, "DELETE FROM impact_terms WHERE conversation_id = ?").run(id);
      stmt(db, "DELETE FROM impact_conversations WHERE conversation_id = ?").run(id);
    }).immediate();
  }
}

/** One batch of a conversation; false when it was already caught up. */
function catchUpBatch(db: Database.Database, conversationId: number, limitId: number, batch: number): boolean {
  return db
    .transaction(() => {
      let state = stmt(db, "SELECT upto FROM impact_conversations WHERE conversation_id = ?").get(conversationId) as { upto: number } | undefined;
      if (!state || state.upto < 0) {
        stmt(db, "DELETE FROM impact_postings WHERE conversation_id = ?").run(conversationId);
        stmt(db, "DELETE FROM impact_terms WHERE conversation_id = ?").run(conversationId);
        stmt(db, "INSERT OR REPLACE INTO impact_conversations (conversation_id, upto) VALUES (?, 0)").run(conversationId);
        state = { upto: 0 };
      }
      const rows = stmt(
        db,
        "SELECT id, body, ctag FROM message_search WHERE conversation_id = ? AND id > ? AND id <= ? ORDER BY id LIMIT ?",
      ).all(conversationId, state.upto, limitId, batch) as Array<{ id: number; body: string; ctag: string }>;
      if (!rows.length) return false;
      addPostings(db, conversationId, byTerm(tokenizeRows(db, rows)));
      stmt(db, "UPDATE impact_conversations SET upto = ? WHERE conversation_id = ?").run(rows[rows.length - 1]!.id, conversationId);
      return true;
    })
    .immediate();
}

function byTerm(docs: Map<number, { len: number; tf: Map<string, number> }>): Map<string, Posting[]> {
  const out = new Map<string, Posting[]>();
  for (const [id, d] of docs) {
    for (const [term, tf] of d.tf) {
      let l = out.get(term);
      if (!l) out.set(term, (l = []));
      l.push({ tf, len: d.len, id });
    }
  }
  return out;
}

function addPostings(db: Database.Database, conversationId: number, terms: Map<string, Posting[]>): void {
  const insert = stmt(db, "INSERT INTO impact_postings (conversation_id, term, message_id, tf, len) VALUES (?, ?, ?, ?, ?)");
  const remove = stmt(db, "DELETE FROM impact_postings WHERE conversation_id = ? AND term = ? AND message_id = ?");
  const save = stmt(db, "INSERT OR REPLACE INTO impact_terms (conversation_id, term, df, kept, cuts) VALUES (?, ?, ?, ?, ?)");
  for (const [term, all] of terms) {
    const known = stmt(db, "SELECT df, kept, cuts FROM impact_terms WHERE conversation_id = ? AND term = ?").get(conversationId, term) as
      | { df: number; kept: number; cuts: string | null }
      | undefined;
    const df = (known?.df ?? 0) + all.length;
    // Most new postings of a common word lose to k kept ones already: counted, not stored, without reading the list.
    const cuts = known?.cuts ? (JSON.parse(known.cuts) as Array<number | null>) : [];
    const added = all.filter((p) => !(p.tf <= cuts.length && cuts[p.tf - 1] != null && cuts[p.tf - 1]! < p.len));
    if (!added.length) {
      save.run(conversationId, term, df, known!.kept, known!.cuts);
      continue;
    }
    if (df <= IMPACT.k) {
      for (const p of added) insert.run(conversationId, term, p.id, p.tf, p.len);
      save.run(conversationId, term, df, (known?.kept ?? 0) + added.length, null);
      continue;
    }
    const old = known
      ? (stmt(db, "SELECT message_id AS id, tf, len FROM impact_postings WHERE conversation_id = ? AND term = ?").all(conversationId, term) as Posting[])
      : [];
    const kept = skyline([...old, ...added], IMPACT.k);
    const keptIds = new Set(kept.map((p) => p.id));
    const oldIds = new Set(old.map((p) => p.id));
    for (const p of old) if (!keptIds.has(p.id)) remove.run(conversationId, term, p.id);
    for (const p of kept) if (!oldIds.has(p.id)) insert.run(conversationId, term, p.id, p.tf, p.len);
    save.run(conversationId, term, df, kept.length, JSON.stringify(cutsOf(kept)));
  }
}

/** For tf = 1…8: the k-th shortest kept row at that tf or more (null: fewer than k). */
function cutsOf(kept: readonly Posting[]): Array<number | null> {
  const out: Array<number | null> = [];
  for (let t = 1; t <= 8; t++) {
    const lens = kept.filter((p) => p.tf >= t).map((p) => p.len).sort((a, b) => a - b);
    out.push(lens.length >= IMPACT.k ? lens[IMPACT.k - 1]! : null);
  }
  return out;
}
