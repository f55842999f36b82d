import { existsSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfigText } from "@context-engine/plugin-loader";
import { describe, expect, it } from "vitest";
import { chatRetention, pruneChats } from "../src/chat/retention.js";
import { TranscriptStore } from "../src/chat/transcripts.js";

const NOW = Date.UTC(2026, 5, 1, 12);
const DAY = 86_400_000;

/** A real home with chats whose transcripts (and ledgers) were last changed `daysAgo` before NOW. */
function home(chats: Array<{ id: string; daysAgo: number; ledger?: boolean }>): TranscriptStore {
  const store = new TranscriptStore(mkdtempSync(join(tmpdir(), "ce-retention-")));
  mkdirSync(store.dir, { recursive: true });
  for (const c of chats) {
    const header = { type: "session", id: c.id, startedAt: "2026-01-01T00:00:00.000Z", model: "m", engine: "compressor", cwd: "/" };
    writeFileSync(store.fileOf(c.id), `${JSON.stringify(header)}\n`);
    const t = new Date(NOW - c.daysAgo * DAY);
    utimesSync(store.fileOf(c.id), t, t);
    if (c.ledger) writeFileSync(store.ledgerFileOf(c.id), "{}\n");
  }
  return store;
}

const kept = (store: TranscriptStore) => store.ids().sort();

describe("chat retention", () => {
  it("keeps everything by default", () => {
    const store = home([{ id: "a", daysAgo: 400 }, { id: "b", daysAgo: 1 }]);
    expect(pruneChats(store, {}, "new", NOW)).toEqual([]);
    expect(kept(store)).toEqual(["a", "b"]);
  });

  it("keep_days removes chats last changed before the bound, each with its ledger file, never the chat starting", () => {
    const store = home([
      { id: "old", daysAgo: 31, ledger: true },
      { id: "resumed", daysAgo: 90, ledger: true },
      { id: "recent", daysAgo: 29, ledger: true },
    ]);
    expect(pruneChats(store, { keep_days: 30 }, "resumed", NOW)).toEqual(["old"]);
    expect(kept(store)).toEqual(["recent", "resumed"]);
    expect(existsSync(store.ledgerFileOf("old"))).toBe(false);
    expect(existsSync(store.ledgerFileOf("resumed"))).toBe(true);
    expect(existsSync(store.ledgerFileOf("recent"))).toBe(true);
  });

  it("max_chats keeps the most recently active, counting the chat starting; both bounds apply together", () => {
    const chats = [1, 2, 3, 4, 5].map((d) => ({ id: `c${d}`, daysAgo: d, ledger: true }));
    const store = home(chats);
    expect(pruneChats(store, { max_chats: 3 }, "new", NOW).sort()).toEqual(["c3", "c4", "c5"]);
    expect(kept(store)).toEqual(["c1", "c2"]);
    expect(existsSync(store.ledgerFileOf("c5"))).toBe(false);

    const both = home(chats);
    expect(pruneChats(both, { max_chats: 10, keep_days: 2.5 }, "c5", NOW).sort()).toEqual(["c3", "c4"]);
    expect(kept(both)).toEqual(["c1", "c2", "c5"]);
  });

  it("reads chat.keep_days and chat.max_chats from config.yaml; a bad value names file, line, field and expectation", () => {
    const read = (text: string) => chatRetention(parseConfigText(text, "/x/config.yaml").source, "/x/config.yaml");
    expect(read("model:\n  name: m\n")).toEqual({});
    expect(read("chat:\n  keep_days: 30\n  max_chats: 100\n")).toEqual({ keep_days: 30, max_chats: 100 });
    expect(() => read("model:\n  name: m\nchat:\n  keep_days: -1\n")).toThrow("/x/config.yaml:4:14: chat.keep_days: expected a number of days greater than 0");
    expect(() => read("chat:\n  max_chats: 2.5\n")).toThrow("/x/config.yaml:2:14: chat.max_chats: expected a whole number of chats, at least 1");
    expect(() => read("chat:\n  keep_day: 3\n")).toThrow("/x/config.yaml:2:3: chat.keep_day: unknown key (expected keep_days or max_chats)");
  });
});
