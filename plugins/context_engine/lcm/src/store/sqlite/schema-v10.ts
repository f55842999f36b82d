import type Database from "better-sqlite3";

const COLUMNS = "id, conversation_id, seq, role, shape, text, payload, name, tool_call_id, extra, tokens, created_at, hash, flags";

/**
 * Version 10: `messages` without its `UNIQUE (conversation_id, seq)` index.
 * `messages_seq_hash (conversation_id, seq, hash)` (version 4) starts with the
 * same two columns, so every lookup by conversation and seq reads it instead;
 * the unique index was a second copy of the pair for every message (0.03× the
 * raw text at 10k messages). The rule it enforced stays: seq is only assigned
 * by ingest, which checks the conversation's highest stored seq (one probe of
 * `messages_seq_hash` per ingest) before it writes. Not a trigger: a trigger on
 * the insert makes each insert open a statement savepoint, and FTS5 flushes
 * its pending terms at every savepoint (one segment per message: measured a
 * larger index and slower searches).
 *
 * SQLite cannot drop a constraint's index, so the table is rebuilt (its ids,
 * which the full-text indexes and every child table hold, are kept). Runs with
 * foreign keys off (the migration runner turns them off around it and checks
 * them before commit): dropping the old table must not touch its children.
 */

export function messagesWithoutSeqUnique(db: Database.Database): void {
  const unique = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND tbl_name = 'messages' AND name LIKE 'sqlite_autoindex_messages_%'").get();
  if (unique) rebuildMessages(db);
}

function rebuildMessages(db: Database.Database): void {
  // Everything that names the table is dropped with it or re-parsed by the rename: kept as written, recreated after.
  const dependents = db
    .prepare(
      `SELECT type, name, sql FROM sqlite_master
       WHERE sql IS NOT NULL AND ((type IN ('index', 'trigger') AND tbl_name = 'messages') OR (type = 'view' AND sql LIKE '%messages%'))`,
    )
    .all() as Array<{ type: string; name: string; sql: string }>;
  for (const v of dependents.filter((d) => d.type === "view")) db.exec(`DROP VIEW ${v.name}`);
  db.exec(`
    CREATE TABLE messages_v10 (
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
      flags           INTEGER NOT NULL DEFAULT 0
    );
    INSERT INTO messages_v10 (${COLUMNS}) SELECT ${COLUMNS} FROM messages ORDER BY id;
    DROP TABLE messages;
    ALTER TABLE messages_v10 RENAME TO messages;
  `);
  // Indexes first (the seq index the trigger probes), then triggers, then views.
  const order = ["index", "trigger", "view"];
  for (const d of dependents.sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type))) db.exec(d.sql);
}
