import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { pinNativeObjects } from "../../src/store/native-pin.js";
import { MIGRATIONS } from "../../src/store/sqlite/schema.js";
import { sqliteHandle } from "../../src/store/sqlite/store.js";
import { openLcmStore, SCHEMA_VERSION } from "../../src/store/index.js";
import { searchHistory } from "../../src/search/index.js";
import type { LcmStore } from "../../src/store/types.js";
import { SEEDED_QUERIES, seedStore } from "../seeded-history.js";

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

/**
 * A version-7 database as that version wrote it: two conversations, leaf
 * summaries whose sources sit in `summary_messages` under their text ids (one
 * of them out of seq order and one message under two leaves), and a condensed
 * summary over two leaves.
 */
function versionSevenFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "lcm-v7-"));
  dirs.push(dir);
  const path = join(dir, "lcm.sqlite");
  const db = pinNativeObjects(new Database(path));
  db.pragma("page_size = 16384");
  db.pragma("journal_mode = WAL");
  for (const m of MIGRATIONS.filter((x) => x.version <= 7)) m.up(db);
  db.pragma("user_version = 7");
  const msg = db.prepare("INSERT INTO messages (conversation_id, seq, role, shape, text, tokens, created_at, hash, flags) VALUES (?, ?, 'user', 0, ?, 5, ?, ?, 0)");
  const sum = db.prepare(
    `INSERT INTO summaries (id, conversation_id, kind, depth, content, tokens, level, earliest_at, latest_at, first_seq, last_seq, descendant_messages, source_tokens, created_at)
     VALUES (?, ?, ?, ?, ?, 5, 'normal', 1, 2, ?, ?, ?, 10, 3)`,
  );
  const source = db.prepare("INSERT INTO summary_messages (summary_id, ordinal, message_id) VALUES (?, ?, ?)");
  const ids: Record<string, number[]> = {};
  for (const [c, session] of [[1, "a"], [2, "b"]] as const) {
    db.prepare("INSERT INTO conversations (id, session_id, created_at, updated_at) VALUES (?, ?, 1, 1)").run(c, session);
    ids[session] = Array.from({ length: 6 }, (_, seq) => Number(msg.run(c, seq, `${session} message ${seq}`, seq, Buffer.alloc(8, seq)).lastInsertRowid));
  }
  const a = ids.a!;
  const b = ids.b!;
  sum.run("sum_00000000000000a1", 1, "leaf", 0, "first leaf", 0, 2, 3);
  [a[0]!, a[1]!, a[2]!].forEach((m, i) => source.run("sum_00000000000000a1", i, m));
  sum.run("sum_00000000000000a2", 1, "leaf", 0, "second leaf", 2, 5, 4);
  [a[5]!, a[2]!, a[3]!, a[4]!].forEach((m, i) => source.run("sum_00000000000000a2", i, m));
  sum.run("sum_00000000000000b1", 2, "leaf", 0, "other conversation", 0, 1, 2);
  [b[0]!, b[1]!].forEach((m, i) => source.run("sum_00000000000000b1", i, m));
  sum.run("sum_00000000000000c1", 1, "condensed", 1, "both leaves", 0, 5, 6);
  db.prepare("INSERT INTO summary_children (summary_id, ordinal, child_id) VALUES ('sum_00000000000000c1', 0, 'sum_00000000000000a1'), ('sum_00000000000000c1', 1, 'sum_00000000000000a2')").run();
  db.close();
  return path;
}

describe("summary sources keyed by rowid (schema version 9)", () => {
  it("moves every source of a version-7 store, in its order, and the lineage reads the same", () => {
    const path = versionSevenFile();
    const before = pinNativeObjects(new Database(path, { readonly: true }));
    const rows = before.prepare("SELECT summary_id, ordinal, message_id FROM summary_messages ORDER BY summary_id, ordinal").all() as Array<{ summary_id: string; ordinal: number; message_id: number }>;
    before.close();
    const store = openLcmStore({ path });
    try {
      const db = sqliteHandle(store);
      expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
      expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'summary_messages'").get()).toBeUndefined();
      const moved = db
        .prepare("SELECT s.id AS summary_id, ss.ordinal, ss.message_id FROM summary_sources ss JOIN summaries s ON s.rowid = ss.summary_rid ORDER BY s.id, ss.ordinal")
        .all();
      expect(moved).toEqual(rows);
      for (const id of new Set(rows.map((r) => r.summary_id))) {
        expect(store.lineage(id).messageIds).toEqual(rows.filter((r) => r.summary_id === id).map((r) => r.message_id));
      }
      const a = (seq: number) => (db.prepare("SELECT id FROM messages WHERE conversation_id = 1 AND seq = ?").get(seq) as { id: number }).id;
      expect(store.summariesCoveringMessage(a(2))).toEqual(["sum_00000000000000a1", "sum_00000000000000a2"]);
      expect(store.summariesCoveringMessage(a(5))).toEqual(["sum_00000000000000a2"]);
      expect(store.descendantMessageIds("sum_00000000000000c1")).toEqual([0, 1, 2, 3, 4, 5].map(a));
      expect(store.lineage("sum_00000000000000c1").childSummaryIds).toEqual(["sum_00000000000000a1", "sum_00000000000000a2"]);
    } finally {
      store.close();
    }
  });

  it("a summary committed after the migration keys its sources by its rowid", () => {
    const store = openLcmStore({ path: versionSevenFile() });
    try {
      const conv = store.findConversation("b")!;
      const ids = (sqliteHandle(store).prepare("SELECT id FROM messages WHERE conversation_id = ? ORDER BY seq").all(conv.id) as Array<{ id: number }>).map((r) => r.id);
      const r = store.commitSummary({ conversationId: conv.id, kind: "leaf", depth: 0, content: "late leaf", tokens: 3, sourceMessageIds: ids.slice(2, 5) });
      if (!r.ok) throw new Error(r.detail);
      expect(store.lineage(r.summary.id).messageIds).toEqual(ids.slice(2, 5));
      expect(store.summariesCoveringMessage(ids[3]!)).toEqual([r.summary.id]);
      const rid = (sqliteHandle(store).prepare("SELECT rowid AS rid FROM summaries WHERE id = ?").get(r.summary.id) as { rid: number }).rid;
      expect(sqliteHandle(store).prepare("SELECT message_id FROM summary_sources WHERE summary_rid = ? ORDER BY ordinal").all(rid)).toEqual(ids.slice(2, 5).map((id) => ({ message_id: id })));
    } finally {
      store.close();
    }
  });

  it("a seeded store answers every search and lineage read the same before and after the migration", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lcm-v9-seeded-"));
    dirs.push(dir);
    const path = join(dir, "lcm.sqlite");
    const store = openLcmStore({ path });
    const { conv, ids, leafIds } = seedStore(store, { condensed: true });
    const snapshot = async (s: LcmStore) => ({
      searches: await Promise.all(SEEDED_QUERIES.map((q) => searchHistory(s, { ...q, conversationId: conv.id }))),
      lineage: leafIds.map((id) => s.lineage(id)),
      covering: ids.map((id) => s.summariesCoveringMessage(id)),
    });
    const after = await snapshot(store);
    expect(after.searches.map((r, i) => [SEEDED_QUERIES[i]!.query, r.hits.length > 0])).toEqual(SEEDED_QUERIES.map((q) => [q.query, true]));
    store.close();

    // The same file laid out as version 8 wrote it: the sources under text ids.
    const db = pinNativeObjects(new Database(path));
    db.exec(`
      CREATE TABLE summary_messages (
        summary_id TEXT NOT NULL REFERENCES summaries(id), ordinal INTEGER NOT NULL, message_id INTEGER NOT NULL REFERENCES messages(id),
        PRIMARY KEY (summary_id, ordinal)
      ) WITHOUT ROWID;
      CREATE INDEX summary_messages_message ON summary_messages (message_id);
      INSERT INTO summary_messages SELECT s.id, ss.ordinal, ss.message_id FROM summary_sources ss JOIN summaries s ON s.rowid = ss.summary_rid;
      DROP TABLE summary_sources;
    `);
    db.pragma("user_version = 8");
    db.close();
    const migrated = openLcmStore({ path });
    try {
      expect(await snapshot(migrated)).toEqual(after);
    } finally {
      migrated.close();
    }
  });
});
