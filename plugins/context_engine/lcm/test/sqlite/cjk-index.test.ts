import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { deleteConversation } from "../../src/retention/index.js";
import { searchHistory } from "../../src/search/index.js";
import { pinNativeObjects } from "../../src/store/native-pin.js";
import { cjkIndexText } from "../../src/store/sqlite/cjk-text.js";
import { MIGRATIONS } from "../../src/store/sqlite/schema.js";
import { sqliteHandle } from "../../src/store/sqlite/store.js";
import { openLcmStore, SCHEMA_VERSION } from "../../src/store/index.js";
import { tempStore, user } from "../helpers.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

const bodies = [
  "Deploy notes: 数据库迁移失败了，需要回滚 before the Kenobi release",
  "ログファイルを確認してください then rerun the flaky job",
  "plain english only, nothing to segment here",
  "설정 파일을 확인하세요 and 数据库 again",
];

const hitsOf = async (store: ReturnType<typeof openLcmStore>, query: string) =>
  (await searchHistory(store, { query, conversationId: null })).hits.map((h) => h.snippet.replace(/[«»…]/g, ""));

describe("the trigram index holds CJK runs only", () => {
  it("keeps the runs of a body, one per line", () => {
    expect(cjkIndexText("a 数据库 b テスト c")).toBe("数据库\nテスト");
    expect(cjkIndexText("no cjk")).toBe("");
    expect(cjkIndexText(null)).toBe("");
  });

  it("answers CJK queries mixed with other words exactly, and a deleted conversation leaves nothing behind", async () => {
    const t = tempStore();
    cleanups.push(t.cleanup);
    const a = t.store.conversation("a");
    const b = t.store.conversation("b");
    t.store.ingest(a.id, bodies.map((x) => user(x)));
    t.store.ingest(b.id, [user("数据库迁移失败了 in another session")], { mode: "append", index: "deferred" });
    expect(await hitsOf(t.store, "数据库迁移")).toHaveLength(2);
    // The Latin word is not in the trigram index: it is checked against the whole body.
    expect(await hitsOf(t.store, "数据库迁移 Kenobi")).toEqual([expect.stringContaining("Kenobi")]);
    expect(await hitsOf(t.store, "ログファイル rerun")).toHaveLength(1);
    expect(await hitsOf(t.store, "ログファイル kenobi")).toHaveLength(0);
    // Two-character CJK terms, and a term mixing scripts.
    expect(await hitsOf(t.store, "数据")).toHaveLength(3);
    expect(await hitsOf(t.store, "数据库again")).toHaveLength(0);
    await deleteConversation(t.store, a.id);
    expect(await hitsOf(t.store, "数据库迁移")).toEqual([expect.stringContaining("another session")]);
    const db = sqliteHandle(t.store);
    const indexed = db.prepare("SELECT count(*) AS n FROM messages_cjk_docsize").get() as { n: number };
    expect(indexed.n).toBe(1);
  });

  it("upgrades a version-4 database whose trigram index holds whole bodies", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lcm-cjk-migrate-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, "lcm.sqlite");
    // Written by the current code, then set back to how version 4 indexed CJK rows.
    const seed = openLcmStore({ path });
    const c = seed.conversation("s");
    seed.ingest(c.id, bodies.map((x) => user(x)));
    seed.close();
    const old = pinNativeObjects(new Database(path));
    old.exec(`INSERT INTO messages_cjk (messages_cjk) VALUES ('delete-all');
      INSERT INTO messages_cjk (rowid, body) SELECT id, body FROM message_search WHERE id IN (SELECT id FROM messages WHERE flags & 4);`);
    old.pragma("user_version = 4");
    old.close();
    expect(MIGRATIONS.some((m) => m.version === 6)).toBe(true);
    const store = openLcmStore({ path });
    try {
      expect(sqliteHandle(store).pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
      // Latin words are no longer in the trigram index: the rebuilt index holds runs only.
      const latin = sqliteHandle(store).prepare("SELECT count(*) AS n FROM messages_cjk WHERE messages_cjk MATCH '\"Kenobi\"'").get() as { n: number };
      expect(latin.n).toBe(0);
      expect(await hitsOf(store, "数据库迁移 Kenobi")).toHaveLength(1);
      await deleteConversation(store, c.id);
      const left = sqliteHandle(store).prepare("SELECT count(*) AS n FROM messages_cjk WHERE messages_cjk MATCH '\"数据库\"'").get() as { n: number };
      expect(left.n).toBe(0);
    } finally {
      store.close();
    }
  });
});
