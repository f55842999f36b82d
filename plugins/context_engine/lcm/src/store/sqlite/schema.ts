import type Database from "better-sqlite3";
import { FLAG_CJK } from "../codec.js";
import { registerCjkText } from "./cjk-text.js";
import { DRAIN_CLAIMS_TABLE } from "../drain-claims.js";
import { PENDING_IMPORTS_TABLE } from "../pending-imports-sql.js";
import { IMPACT_TABLES } from "./impact-index.js";
import { messagesWithoutSeqUnique } from "./schema-v10.js";

/**
 * Versioned migrations, tracked in `PRAGMA user_version`. Each runs in its own
 * transaction; a database newer than this code is refused rather than guessed at.
 */
export interface Migration {
  version: number;
  description: string;
  up(db: Database.Database): void;
  /** Rebuilds a parent table: runs with foreign keys off, checked before commit. */
  rebuildsTable?: boolean;
}

export const FTS_TOKENIZER = "porter unicode61 remove_diacritics 2";

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "conversations, messages, parts, payloads, summaries, lineage, frontier, full-text indexes",
    up(db) {
      db.exec(`
        CREATE TABLE conversations (
          id               INTEGER PRIMARY KEY,
          session_id       TEXT NOT NULL UNIQUE,
          created_at       INTEGER NOT NULL,
          updated_at       INTEGER NOT NULL,
          message_count    INTEGER NOT NULL DEFAULT 0,
          message_tokens   INTEGER NOT NULL DEFAULT 0,
          text_bytes       INTEGER NOT NULL DEFAULT 0,
          frontier_version INTEGER NOT NULL DEFAULT 0,
          frontier_tokens  INTEGER NOT NULL DEFAULT 0,
          frontier_count   INTEGER NOT NULL DEFAULT 0
        );

        -- Large bodies, stored once (content-addressed by sha256 hex).
        CREATE TABLE payloads (
          hash       TEXT PRIMARY KEY,
          bytes      INTEGER NOT NULL,
          mime       TEXT,
          is_text    INTEGER NOT NULL,
          data       BLOB NOT NULL,
          created_at INTEGER NOT NULL
        );

        -- Immutable messages. text is NULL when the content moved to payloads.
        CREATE TABLE messages (
          id              INTEGER PRIMARY KEY,
          conversation_id INTEGER NOT NULL REFERENCES conversations(id),
          seq             INTEGER NOT NULL,
          role            TEXT NOT NULL,
          shape           INTEGER NOT NULL,
          text            TEXT,
          payload         TEXT REFERENCES payloads(hash),
          name            TEXT,
          tool_call_id    TEXT,
          extra           TEXT,
          tokens          INTEGER NOT NULL,
          created_at      INTEGER NOT NULL,
          hash            BLOB NOT NULL,
          flags           INTEGER NOT NULL DEFAULT 0,
          UNIQUE (conversation_id, seq)
        );
        CREATE INDEX messages_hash ON messages (conversation_id, hash);
        CREATE INDEX messages_tool_result ON messages (conversation_id, tool_call_id) WHERE tool_call_id IS NOT NULL;
        CREATE INDEX messages_payload ON messages (payload) WHERE payload IS NOT NULL;

        -- Tool calls and non-plain content parts, as structure.
        CREATE TABLE message_parts (
          message_id INTEGER NOT NULL REFERENCES messages(id),
          kind       INTEGER NOT NULL,
          ordinal    INTEGER NOT NULL,
          call_id    TEXT,
          name       TEXT,
          body       TEXT,
          payload    TEXT REFERENCES payloads(hash),
          span       INTEGER,
          extra      TEXT,
          PRIMARY KEY (message_id, kind, ordinal)
        ) WITHOUT ROWID;
        CREATE INDEX message_parts_call ON message_parts (call_id) WHERE call_id IS NOT NULL;
        CREATE INDEX message_parts_payload ON message_parts (payload) WHERE payload IS NOT NULL;

        CREATE TABLE summaries (
          id                  TEXT PRIMARY KEY,
          conversation_id     INTEGER NOT NULL REFERENCES conversations(id),
          kind                TEXT NOT NULL CHECK (kind IN ('leaf', 'condensed')),
          depth               INTEGER NOT NULL,
          content             TEXT NOT NULL,
          tokens              INTEGER NOT NULL,
          level               TEXT NOT NULL,
          model               TEXT,
          earliest_at         INTEGER NOT NULL,
          latest_at           INTEGER NOT NULL,
          first_seq           INTEGER NOT NULL,
          last_seq            INTEGER NOT NULL,
          descendant_messages INTEGER NOT NULL,
          source_tokens       INTEGER NOT NULL,
          meta                TEXT,
          created_at          INTEGER NOT NULL
        );
        CREATE INDEX summaries_conversation ON summaries (conversation_id, depth, first_seq);

        CREATE TABLE summary_messages (
          summary_id TEXT NOT NULL REFERENCES summaries(id),
          ordinal    INTEGER NOT NULL,
          message_id INTEGER NOT NULL REFERENCES messages(id),
          PRIMARY KEY (summary_id, ordinal)
        ) WITHOUT ROWID;
        CREATE INDEX summary_messages_message ON summary_messages (message_id);

        CREATE TABLE summary_children (
          summary_id TEXT NOT NULL REFERENCES summaries(id),
          ordinal    INTEGER NOT NULL,
          child_id   TEXT NOT NULL REFERENCES summaries(id),
          PRIMARY KEY (summary_id, ordinal)
        ) WITHOUT ROWID;
        CREATE INDEX summary_children_child ON summary_children (child_id);

        -- The active context of each conversation, in ordinal order (sparse keys).
        CREATE TABLE frontier (
          conversation_id INTEGER NOT NULL REFERENCES conversations(id),
          ordinal         INTEGER NOT NULL,
          message_id      INTEGER REFERENCES messages(id),
          summary_id      TEXT REFERENCES summaries(id),
          tokens          INTEGER NOT NULL,
          PRIMARY KEY (conversation_id, ordinal),
          CHECK ((message_id IS NULL) <> (summary_id IS NULL))
        ) WITHOUT ROWID;
        CREATE INDEX frontier_summary ON frontier (summary_id) WHERE summary_id IS NOT NULL;

        -- What the full-text indexes see; read back only for snippets (external content: no second copy).
        CREATE VIEW message_search AS
          SELECT m.id AS id,
                 m.conversation_id AS conversation_id,
                 COALESCE(m.text, (SELECT CAST(p.data AS TEXT) FROM payloads p WHERE p.hash = m.payload), '')
                 || COALESCE((SELECT group_concat(char(10) || COALESCE(mp.name, '') || ' ' ||
                                     COALESCE(mp.body, (SELECT CAST(p2.data AS TEXT) FROM payloads p2 WHERE p2.hash = mp.payload), ''), '' ORDER BY mp.ordinal)
                              FROM message_parts mp WHERE mp.message_id = m.id AND mp.kind = 1), '') AS body,
                 'c' || m.conversation_id AS ctag
          FROM messages m;

        CREATE VIRTUAL TABLE messages_fts USING fts5 (
          body, ctag, content='message_search', content_rowid='id', tokenize='${FTS_TOKENIZER}'
        );
        -- Only rows containing CJK text, which unicode61 cannot segment.
        CREATE VIRTUAL TABLE messages_cjk USING fts5 (
          body, content='message_search', content_rowid='id', tokenize='trigram'
        );

        CREATE VIEW summary_search AS
          SELECT rowid AS rid, id, conversation_id, content AS body, 'c' || conversation_id AS ctag FROM summaries;
        CREATE VIRTUAL TABLE summaries_fts USING fts5 (
          body, ctag, content='summary_search', content_rowid='rid', tokenize='${FTS_TOKENIZER}'
        );
      `);
    },
  },
  {
    version: 2,
    description: "write-behind full-text indexing queue (bulk imports index later, in bounded slices)",
    up(db) {
      db.exec(`CREATE TABLE fts_pending (message_id INTEGER PRIMARY KEY REFERENCES messages(id))`);
    },
  },
  {
    version: 3,
    description: "full-text index write tuning: index pages as large as database pages, merge segments 16 at a time",
    up(db) {
      tuneFullTextIndexes(db);
    },
  },
  {
    version: 4,
    description: "identity hashes indexed in seq order (appended, not inserted at random; alignment reads them without the rows)",
    up(db) {
      db.exec(`
        CREATE INDEX messages_seq_hash ON messages (conversation_id, seq, hash);
        DROP INDEX messages_hash;
      `);
    },
  },
  {
    version: 5,
    description: "ingest keys (a host's turn ids and message ids) and writer positions, so a turn delivered twice or a list sent again after a restart is stored once",
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS ingest_keys (
          conversation_id INTEGER NOT NULL REFERENCES conversations(id),
          key TEXT NOT NULL,
          message_id INTEGER,
          created_at INTEGER NOT NULL,
          PRIMARY KEY (conversation_id, key)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS writer_positions (
          id INTEGER PRIMARY KEY,
          conversation_id INTEGER NOT NULL REFERENCES conversations(id),
          list_index INTEGER NOT NULL,
          fingerprint TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS writer_positions_conv ON writer_positions (conversation_id, id);
      `);
    },
  },
  { version: 6, description: "the trigram index holds the CJK runs of a message only, not its whole body", up: cjkRunsOnly },
  { version: 7, description: "drain claims: one process at a time summarises a conversation's backlog", up: (db) => db.exec(DRAIN_CLAIMS_TABLE) },
  {
    version: 8,
    description: "impact postings: each term's possible best messages in large conversations, so a common word's top hits are read, not all scored (filled in the background)",
    up: (db) => db.exec(IMPACT_TABLES),
  },
  { version: 9, description: "a summary's source messages keyed by the summary's rowid instead of its text id", up: summarySourcesByRowid },
  {
    version: 10,
    description: "messages without the UNIQUE (conversation_id, seq) index (messages_seq_hash leads with the same columns; a trigger keeps seq unique)",
    up: messagesWithoutSeqUnique,
    rebuildsTable: true,
  },
  {
    version: 11,
    description: "pending imports: a long history's backlog stored after its tail, in the background, resumable after a restart",
    up: (db) => db.exec(PENDING_IMPORTS_TABLE),
  },
];

/**
 * Version 9: `summary_sources` replaces `summary_messages`. The text id
 * (`sum_` and 16 hex digits) was written twice per source message, in the
 * table and in its message index: 0.14× the raw text at 10k messages, the
 * largest part of what summaries add. The summary's rowid (the handle the
 * summaries' full-text index already uses) takes one or two bytes. Rowid
 * tables keep their rowids here: the store never runs a full VACUUM, only
 * `incremental_vacuum`, which moves pages, not rows.
 */
function summarySourcesByRowid(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS summary_sources (
      summary_rid INTEGER NOT NULL,
      ordinal     INTEGER NOT NULL,
      message_id  INTEGER NOT NULL REFERENCES messages(id),
      PRIMARY KEY (summary_rid, ordinal)
    ) WITHOUT ROWID;
  `);
  // Idempotent like the versions before it: a file already laid out this way has no old table left.
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'summary_messages'").get()) {
    db.exec(`
      INSERT INTO summary_sources (summary_rid, ordinal, message_id)
        SELECT s.rowid, sm.ordinal, sm.message_id FROM summary_messages sm JOIN summaries s ON s.id = sm.summary_id ORDER BY 1, 2;
      DROP TABLE summary_messages;
    `);
  }
  db.exec("CREATE INDEX IF NOT EXISTS summary_sources_message ON summary_sources (message_id)");
}

/**
 * Version 6: rebuild the trigram index from the CJK runs of each indexed CJK
 * message (`lcm_cjk_text`, see cjk-text.ts); rows still queued for indexing
 * are indexed the new way when their turn comes.
 */
function cjkRunsOnly(db: Database.Database): void {
  registerCjkText(db);
  db.exec(`
    INSERT INTO messages_cjk (messages_cjk) VALUES ('delete-all');
    INSERT INTO messages_cjk (rowid, body)
      SELECT s.id, lcm_cjk_text(s.body) FROM message_search s
      WHERE s.id IN (SELECT id FROM messages WHERE (flags & ${FLAG_CJK}) != 0 AND id NOT IN (SELECT message_id FROM fts_pending));
    INSERT INTO messages_cjk (messages_cjk) VALUES ('optimize');
  `);
}

/** The full-text tables of the current schema. */
export const FTS_TABLES = ["messages_fts", "messages_cjk", "summaries_fts"] as const;

/**
 * Settings that cut the cost of writing the full-text indexes (about a third
 * of ingesting with indexing at once) without changing what they return: the
 * same documents, terms and positions, only laid out in fewer, larger pieces.
 *  - pgsz: FTS5's default leaf size (4,050 bytes) fits a 4 KiB database page; in 16 KiB pages the same
 *    data needs four times the rows. Sized the same way to the real page (4,050 stays 4,050 there).
 *  - automerge: FTS5 starts merging a level once it holds 4 segments, so every posting is rewritten
 *    about log4(segments) times, and merging was a third of the index cost of a 1,000-message ingest
 *    into a store that already held 100k. At 16 (FTS5's own crisis-merge threshold) it is half as many
 *    rewrites; a search reads up to 15 segments per level instead of 3, and `compact()` still merges
 *    everything into one.
 * Both are stored in each table's config and only affect what is written from now on.
 */
export function tuneFullTextIndexes(db: Database.Database): void {
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  const pgsz = Math.min(65_536, pageSize) - 46;
  // Literal integers: FTS5 rejects a REAL, and better-sqlite3 binds JS numbers as REAL.
  for (const t of FTS_TABLES) {
    db.exec(`INSERT INTO ${t} (${t}, rank) VALUES ('pgsz', ${Math.trunc(pgsz)})`);
    db.exec(`INSERT INTO ${t} (${t}, rank) VALUES ('automerge', 16)`);
  }
}

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

function assertForeignKeys(db: Database.Database, version: number): void {
  const broken = db.pragma("foreign_key_check") as Array<{ table: string; parent: string }>;
  if (broken.length > 0) {
    const first = broken[0]!;
    throw new Error(`LCM schema migration ${version}: ${broken.length} rows of ${first.table} lost their ${first.parent} row; nothing was changed`);
  }
}

/** Bring a database to the current schema. Returns the version it started from. */
export function migrate(db: Database.Database): number {
  const from = db.pragma("user_version", { simple: true }) as number;
  if (from === 0) {
    // Only possible before the first table exists: lets retention give space back without a full VACUUM.
    const tables = db.prepare("SELECT count(*) AS n FROM sqlite_master").get() as { n: number };
    if (tables.n === 0) db.pragma("auto_vacuum = INCREMENTAL");
  }
  if (from > SCHEMA_VERSION) {
    throw new Error(
      `LCM database schema version ${from} is newer than this engine supports (${SCHEMA_VERSION}); upgrade @context-engine/lcm`,
    );
  }
  for (const m of MIGRATIONS) {
    if (m.version <= from) continue;
    // PRAGMA foreign_keys is a no-op inside a transaction: set around it, restored whatever happens.
    const keys = m.rebuildsTable ? (db.pragma("foreign_keys", { simple: true }) as number) : 0;
    if (keys) db.pragma("foreign_keys = OFF");
    try {
      db.transaction(() => {
        m.up(db);
        if (m.rebuildsTable) assertForeignKeys(db, m.version);
        db.pragma(`user_version = ${m.version}`);
      }).immediate();
    } finally {
      if (keys) db.pragma("foreign_keys = ON");
    }
  }
  return from;
}
