import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { searchHistory } from "../../src/search/index.js";
import { STORE_REST_MS } from "../../src/store/sqlite/rest.js";
import { sqliteHandle } from "../../src/store/sqlite/store.js";
import { openLcmStore } from "../../src/store/index.js";
import { asst, user } from "../helpers.js";

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const walBytes = (path: string) => {
  try {
    return statSync(`${path}-wal`).size;
  } catch {
    return 0;
  }
};

describe("the SQLite store at rest", () => {
  it("gives free pages back and empties the -wal file once writes pause", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lcm-rest-"));
    dirs.push(dir);
    const path = join(dir, "lcm.sqlite");
    const store = openLcmStore({ path });
    try {
      const conv = store.conversation("rest");
      // One transaction per turn: each leaves a full-text segment of its own.
      for (let t = 0; t < 40; t++) store.ingest(conv.id, [user(`turn ${t} asks about deploy ${t} and kenobi${t}`), asst(`answer ${t}: the canary of turn ${t} passed`)], { mode: "append" });
      const written = walBytes(path);
      expect(written).toBeGreaterThan(0);
      // Still writing: nothing is done before the pause.
      await sleep(STORE_REST_MS / 2);
      store.ingest(conv.id, [user("one more turn about kenobi39")], { mode: "append" });
      await sleep(STORE_REST_MS / 2 + 50);
      expect(walBytes(path)).toBeGreaterThan(0);
      await sleep(STORE_REST_MS + 300);
      expect(walBytes(path)).toBe(0);
      expect(sqliteHandle(store).pragma("freelist_count", { simple: true })).toBe(0);
      // The store answers as before.
      const hits = await searchHistory(store, { query: "kenobi39", conversationId: conv.id });
      expect(hits.hits.map((h) => h.seq ?? -1).sort((a, b) => a - b)).toEqual([78, 80]);
      // Writing again after the rest works from an empty log.
      store.ingest(conv.id, [asst("after the rest")], { mode: "append" });
      expect(walBytes(path)).toBeGreaterThan(0);
      expect(store.getMessageBySeq(conv.id, 81)?.message).toEqual(asst("after the rest"));
    } finally {
      store.close();
    }
  });
});
