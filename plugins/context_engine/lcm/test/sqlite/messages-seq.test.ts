import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { pinNativeObjects } from "../../src/store/native-pin.js";
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

const COLUMNS = "id, conversation_id, seq, role, shape, text, payload, name, tool_call_id, extra, tokens, created_at, hash, flags";

/** The same file laid out as version 9 wrote it: `messages` with its UNIQUE (conversation_id, seq) index. */
function downgradeToVersionNine(path: string): void {
  const db = pinNativeObjects(new Database(path));
  db.pragma("foreign_keys = OFF");
  const keep = db
    .prepare("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND ((type IN ('index', 'trigger') AND tbl_name = 'messages') OR name = 'message_search')")
    .all() as Array<{ sql: string }>;
  db.exec(`
    DROP VIEW message_search;
    CREATE TABLE messages_v9 (
      id INTEGER PRIMARY KEY, conversation_id INTEGER NOT NULL REFERENCES conversations(id), seq INTEGER NOT NULL,
      role TEXT NOT NULL, shape INTEGER NOT NULL, text TEXT, payload TEXT REFERENCES payloads(hash), name TEXT,
      tool_call_id TEXT, extra TEXT, tokens INTEGER NOT NULL, created_at INTEGER NOT NULL, hash BLOB NOT NULL,
      flags INTEGER NOT NULL DEFAULT 0, UNIQUE (conversation_id, seq)
    );
    INSERT INTO messages_v9 (${COLUMNS}) SELECT ${COLUMNS} FROM messages;
    DROP TABLE messages;
    ALTER TABLE messages_v9 RENAME TO messages;
  `);
  for (const { sql } of keep) db.exec(sql);
  db.pragma("user_version = 9");
  db.close();
}

function messagesLayout(db: Database.Database): { indexes: string[]; triggers: string[]; rows: unknown[] } {
  const names = (type: string) =>
    (db.prepare("SELECT name FROM sqlite_master WHERE type = ? AND tbl_name = 'messages' ORDER BY name").all(type) as Array<{ name: string }>).map((r) => r.name);
  return { indexes: names("index"), triggers: names("trigger"), rows: db.prepare(`SELECT ${COLUMNS} FROM messages ORDER BY id`).all() };
}

describe("messages without the UNIQUE (conversation_id, seq) index (schema version 10)", () => {
  it("rebuilds a version-9 store: same rows and ids, every search and lineage read the same, nothing left of the old index", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lcm-v10-"));
    dirs.push(dir);
    const path = join(dir, "lcm.sqlite");
    const store = openLcmStore({ path });
    const { conv, messages, ids, leafIds } = seedStore(store);
    const snapshot = async (s: LcmStore) => ({
      searches: await Promise.all(SEEDED_QUERIES.map((q) => searchHistory(s, { ...q, conversationId: conv.id }))),
      lineage: leafIds.map((id) => s.lineage(id)),
      covering: ids.map((id) => s.summariesCoveringMessage(id)),
      bySeq: [0, 17, messages.length - 1].map((seq) => s.getMessageBySeq(conv.id, seq)),
      tokens: s.tokensInRange(conv.id, 10, 30),
    });
    const before = await snapshot(store);
    expect(before.searches.every((r) => r.hits.length > 0)).toBe(true);
    const fresh = messagesLayout(sqliteHandle(store));
    store.close();

    downgradeToVersionNine(path);
    const old = pinNativeObjects(new Database(path, { readonly: true }));
    expect(messagesLayout(old).indexes).toContain("sqlite_autoindex_messages_1");
    old.close();

    const migrated = openLcmStore({ path });
    try {
      const db = sqliteHandle(migrated);
      expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
      expect(messagesLayout(db)).toEqual(fresh);
      expect(fresh.indexes).toEqual(["messages_payload", "messages_seq_hash", "messages_tool_result"]);
      expect(fresh.triggers).toEqual(["impact_forget"]);
      expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
      expect(db.pragma("foreign_key_check")).toEqual([]);
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
      expect(await snapshot(migrated)).toEqual(before);
      // The store still writes after the rebuild, at the next seq.
      migrated.ingest(conv.id, [{ role: "user", content: "after the rebuild: zanzibar" }], { mode: "append" });
      const last = db.prepare("SELECT seq FROM messages WHERE conversation_id = ? ORDER BY seq DESC LIMIT 1").get(conv.id) as { seq: number };
      expect(last.seq).toBe(messages.length);
      expect((await searchHistory(migrated, { query: "zanzibar", conversationId: conv.id })).hits.map((h) => h.seq)).toEqual([messages.length]);
    } finally {
      migrated.close();
    }
  });

  it("refuses to write a second message at a stored seq, and writes nothing of that ingest", () => {
    const dir = mkdtempSync(join(tmpdir(), "lcm-v10-guard-"));
    dirs.push(dir);
    const store = openLcmStore({ path: join(dir, "lcm.sqlite") });
    try {
      const conv = store.conversation("guard");
      store.ingest(conv.id, [{ role: "user", content: "one" }, { role: "assistant", content: "two" }], { mode: "append" });
      const db = sqliteHandle(store);
      // A count behind the rows (what the unique index used to catch): the next seq would be taken.
      db.prepare("UPDATE conversations SET message_count = 1 WHERE id = ?").run(conv.id);
      expect(() => store.ingest(conv.id, [{ role: "user", content: "three" }], { mode: "append" })).toThrow(/holds a message at seq 1 but counts 1/);
      expect(db.prepare("SELECT seq, text FROM messages WHERE conversation_id = ? ORDER BY seq").all(conv.id)).toEqual([
        { seq: 0, text: "one" },
        { seq: 1, text: "two" },
      ]);
    } finally {
      store.close();
    }
  });
});
