import { sqliteHandle } from "../../src/store/sqlite/store.js";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { searchHistory } from "../../src/search/index.js";
import { pinNativeObjects } from "../../src/store/native-pin.js";
import { MIGRATIONS } from "../../src/store/sqlite/schema.js";
import { openLcmStore, SCHEMA_VERSION } from "../../src/store/index.js";
import { asst, user } from "../helpers.js";

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

const texts = ["the deploy failed with a timeout", "retry the migration on staging", "the kenobi canary is in here", "done, all green"];

/** A database as schema version 2 left it: its migrations only, rows written the way that version wrote them. */
function versionTwoFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "lcm-migrate-"));
  dirs.push(dir);
  const path = join(dir, "lcm.sqlite");
  const db = pinNativeObjects(new Database(path));
  db.pragma("page_size = 16384");
  db.pragma("journal_mode = WAL");
  for (const m of MIGRATIONS.filter((x) => x.version <= 2)) m.up(db);
  db.pragma("user_version = 2");
  db.prepare("INSERT INTO conversations (session_id, created_at, updated_at) VALUES ('s', 1, 1)").run();
  texts.forEach((text, seq) => {
    const role = seq % 2 === 0 ? "user" : "assistant";
    // The identity hash as version 2 computed it.
    const hash = createHash("sha256").update(`${role}\u0000${text}\u0000\u0000\u0000`).digest().subarray(0, 8);
    const id = Number(
      db
        .prepare("INSERT INTO messages (conversation_id, seq, role, shape, text, tokens, created_at, hash, flags) VALUES (1, ?, ?, 0, ?, 10, 1, ?, 0)")
        .run(seq, role, text, hash).lastInsertRowid,
    );
    db.prepare("INSERT INTO messages_fts (rowid, body, ctag) VALUES (?, ?, 'c1')").run(id, text);
    db.prepare("INSERT INTO frontier (conversation_id, ordinal, message_id, tokens) VALUES (1, ?, ?, 10)").run(seq, id);
  });
  db.prepare("UPDATE conversations SET message_count = ?, message_tokens = ?, frontier_count = ?, frontier_tokens = ?, frontier_version = 1").run(
    texts.length,
    10 * texts.length,
    texts.length,
    10 * texts.length,
  );
  db.close();
  return path;
}

describe("schema migrations", () => {
  it("upgrades a version-2 database: its messages stay searchable and aligned, the new settings apply", async () => {
    const store = openLcmStore({ path: versionTwoFile() });
    try {
      expect(sqliteHandle(store).pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);

      // full-text settings (v3), on every index
      for (const t of ["messages_fts", "messages_cjk", "summaries_fts"]) {
        const config = Object.fromEntries((sqliteHandle(store).prepare(`SELECT k, v FROM ${t}_config`).all() as Array<{ k: string; v: number }>).map((r) => [r.k, r.v]));
        expect(config).toMatchObject({ pgsz: 16384 - 46, automerge: 16 });
      }
      // ingest keys (v5)
      expect(sqliteHandle(store).prepare("SELECT name FROM sqlite_master WHERE name = 'ingest_keys'").get()).toBeTruthy();
      // identity hashes indexed in seq order (v4)
      const indexes = (sqliteHandle(store).prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'messages'").all() as Array<{ name: string }>).map((r) => r.name);
      expect(indexes).toContain("messages_seq_hash");
      expect(indexes).not.toContain("messages_hash");

      const conv = store.findConversation("s")!;
      expect((await searchHistory(store, { query: "kenobi", conversationId: conv.id })).hits.map((h) => h.seq)).toEqual([2]);

      // the old identity hashes still anchor the host's transcript
      const transcript = texts.map((t, i) => (i % 2 === 0 ? user(t) : asst(t)));
      const again = store.ingest(conv.id, [...transcript, user("and one more thing")]);
      expect(again.alignment).toBe("reconciled");
      expect(again.appended).toBe(1);
      expect(again.ids.slice(0, 4)).toEqual(store.getMessages(conv.id, { toSeq: 3 }).map((m) => m.id));
      // and the fallback finds them through the new index
      const edited = store.ingest(conv.id, [user(texts[0]!), user("after an edit")]);
      expect(edited.alignment).toBe("reconciled");
      expect(edited.appended).toBe(1);

      expect(store.getFrontier(conv.id).items.map((i) => i.ordinal)).toEqual([0, 1, 2, 3, 4, 5]);
      expect((await searchHistory(store, { query: "edit", conversationId: conv.id })).hits).toHaveLength(1);
      expect(() => sqliteHandle(store).prepare("INSERT INTO messages_fts (messages_fts, rank) VALUES ('integrity-check', 1)").run()).not.toThrow();
    } finally {
      store.close();
    }
  });

  it("gives a 4 KiB-page database the default full-text page size", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lcm-migrate-"));
    dirs.push(dir);
    const path = join(dir, "lcm.sqlite");
    const db = pinNativeObjects(new Database(path));
    db.pragma("page_size = 4096");
    for (const m of MIGRATIONS.filter((x) => x.version <= 2)) m.up(db);
    db.pragma("user_version = 2");
    db.close();
    const store = openLcmStore({ path });
    try {
      expect((sqliteHandle(store).prepare("SELECT v FROM messages_fts_config WHERE k = 'pgsz'").get() as { v: number }).v).toBe(4050);
    } finally {
      store.close();
    }
  });
});
