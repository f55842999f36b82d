import { sqliteHandle } from "../../src/store/sqlite/store.js";
import { readFileSync } from "node:fs";
import Database from "better-sqlite3";
import type { Message } from "@context-engine/core";
import { afterEach, describe, expect, it } from "vitest";
import { pinNativeObjects } from "../../src/store/native-pin.js";
import { openLcmStore } from "../../src/store/index.js";
import { asst, call, result, sys, tempStore, user } from "../helpers.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});
function fresh(options = {}) {
  const t = tempStore(options);
  cleanups.push(t.cleanup);
  return t;
}

describe("store: messages keep their structure", () => {
  it("round-trips strings, null content, tool calls, content parts and unknown fields", () => {
    const { store } = fresh();
    const conv = store.conversation("s1");
    const msgs: Message[] = [
      sys("You are a coding agent."),
      user("read a.ts please"),
      { ...call("call_1", "read_file", { path: "a.ts" }), reasoning_content: "need the file" } as Message,
      result("call_1", "export const a = 1;\n"),
      {
        role: "user",
        content: [
          { type: "text", text: "look at this" },
          { type: "image_url", image_url: { url: "https://example.com/x.png", detail: "low" } },
          { type: "text", text: "line one\nline two", cache_control: { type: "ephemeral" } },
        ],
      } as Message,
      { role: "assistant", content: "", name: "helper" } as Message,
    ];
    const r = store.ingest(conv.id, msgs);
    expect(r.appended).toBe(6);
    const stored = store.getMessages(conv.id);
    expect(stored.map((m) => m.seq)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(stored.map((m) => m.message)).toEqual(msgs);
    expect(stored[2]!.toolCallIds).toEqual(["call_1"]);
    expect(stored[3]!.toolCallId).toBe("call_1");
    expect(stored[2]!.text).toContain('read_file {"path":"a.ts"}');
    expect(store.toolExchange(conv.id, "call_1").map((m) => m.seq)).toEqual([2, 3]);
    // tool calls are structure in message_parts, not flattened JSON
    const part = sqliteHandle(store).prepare("SELECT kind, call_id, name, body FROM message_parts WHERE call_id = 'call_1'").get();
    expect(part).toEqual({ kind: 1, call_id: "call_1", name: "read_file", body: '{"path":"a.ts"}' });
    expect(store.getConversation(conv.id)!.messageTokens).toBe(stored.reduce((a, m) => a + m.tokens, 0));
  });

  it("reports messages it cannot store and keeps the rest", () => {
    const { store } = fresh();
    const conv = store.conversation("s");
    const r = store.ingest(conv.id, [user("a"), 42 as unknown as Message, { role: "wizard", content: "x" } as unknown as Message, user("b")]);
    expect(r.appended).toBe(2);
    expect(r.rejected.map((x) => x.index)).toEqual([1, 2]);
    expect(r.rejected[1]!.reason).toMatch(/unknown role/);
  });

  it("stores large bodies once (content-addressed) and restores them on read", () => {
    const { store } = fresh({ payloadThresholdBytes: 1024 });
    const conv = store.conversation("s");
    const big = "x".repeat(5000) + " needle-in-payload";
    store.ingest(conv.id, [call("c1", "cat", { f: 1 }), result("c1", big), call("c2", "cat", { f: 2 }), result("c2", big)]);
    expect(store.stats().payloads).toBe(1);
    const msgs = store.getMessages(conv.id);
    expect((msgs[1]!.message as { content: string }).content).toBe(big);
    expect((msgs[3]!.message as { content: string }).content).toBe(big);
    const hash = (sqliteHandle(store).prepare("SELECT payload FROM messages WHERE seq = 1").get() as { payload: string }).payload;
    expect(store.getPayload(hash)!.text).toBe(big);
  });
});

describe("store: idempotent ingestion", () => {
  const base = [sys("S"), user("hello"), asst("hi there"), user("continue"), asst("step one done")];

  it("stores the same list once", () => {
    const { store } = fresh();
    const c = store.conversation("s");
    store.ingest(c.id, base);
    const again = store.ingest(c.id, base);
    expect(again.appended).toBe(0);
    // The list ends where this writer's recorded position is: nothing before it is looked at.
    expect(again.alignment).toBe("position");
    expect(store.getConversation(c.id)!.messageCount).toBe(5);
  });

  it("appends only the growth, even when the new turn repeats an old message", () => {
    const { store } = fresh();
    const c = store.conversation("s");
    store.ingest(c.id, base);
    const grown = [...base, user("continue"), asst("step two done")];
    const r = store.ingest(c.id, grown);
    expect(r.appended).toBe(2);
    expect(store.getMessages(c.id).map((m) => (m.message as { content: string }).content)).toEqual([
      "S", "hello", "hi there", "continue", "step one done", "continue", "step two done",
    ]);
    expect(r.ids.slice(5)).toEqual(store.getMessages(c.id, { fromSeq: 5 }).map((m) => m.id));
  });

  it("does not duplicate a transcript that was already compacted", () => {
    const { store } = fresh();
    const c = store.conversation("s");
    store.ingest(c.id, base);
    const compacted = [sys("S"), user("[LCM summary sum_x]"), asst("step one done"), user("next"), asst("ok")];
    const r = store.ingest(c.id, compacted, { isSynthetic: (m) => typeof m.content === "string" && m.content.startsWith("[LCM summary") });
    expect(r.synthetic).toBe(1);
    expect(r.appended).toBe(2);
    expect(store.getConversation(c.id)!.messageCount).toBe(7);
    // a host that dropped the middle without a marker: the system message is a boundary
    const trimmed = [sys("S"), asst("ok"), user("more")];
    expect(store.ingest(c.id, trimmed).appended).toBe(1);
    expect(store.getConversation(c.id)!.messageCount).toBe(8);
  });

  it("recognises messages the engine rebuilt from the store (redacted form)", () => {
    const { store } = fresh();
    const c = store.conversation("s");
    const secret = user("my token is sk-proj-AAAAAAAAAAAAAAAAAAAAAAAAAAAA1234");
    store.ingest(c.id, [sys("S"), secret, asst("noted")]);
    const rebuilt = store.getMessages(c.id).map((m) => m.message);
    expect(JSON.stringify(rebuilt)).not.toContain("sk-proj-AAAA");
    const r = store.ingest(c.id, [...rebuilt, user("next")]);
    expect(r.appended).toBe(1);
    // The redacted form has the same identity: the recorded position holds for the rebuilt list.
    expect(r.alignment).toBe("position");
  });

  it("appends everything when nothing overlaps, and uses hashes when the order was edited", () => {
    const { store } = fresh();
    const c = store.conversation("s");
    store.ingest(c.id, base);
    expect(store.ingest(c.id, [user("brand new"), asst("fresh")]).alignment).toBe("no-overlap");
    const r = store.ingest(c.id, [user("hello"), user("brand new"), asst("edited"), user("after")]);
    expect(r.alignment).toBe("reconciled");
    expect(r.appended).toBe(2);
  });

  it("finds a known message older than the stored tail, and maps it to its newest copy", () => {
    const { store } = fresh();
    const c = store.conversation("s");
    const history = Array.from({ length: 400 }, (_, i) => user(i === 3 || i === 7 ? "said twice" : `line ${i}`));
    store.ingest(c.id, history);
    const stored = store.getMessages(c.id);
    // no anchor (the last stored message is missing): the fallback has to look past the newest 320
    const r = store.ingest(c.id, [user("line 5"), user("said twice"), user("after the rewrite")]);
    expect(r.alignment).toBe("reconciled");
    expect(r.appended).toBe(1);
    expect(r.ids[1]).toBe(stored[7]!.id);
    expect(store.getMessages(c.id, { reverse: true, limit: 1 })[0]!.text).toBe("after the rewrite");
  });

  it("aligns a transcript after a bulk import larger than the identity cache keeps", () => {
    const { store } = fresh();
    const c = store.conversation("s");
    const imported = Array.from({ length: 1500 }, (_, i) => (i % 2 ? asst(`answer ${i}`) : user(`question ${i}`)));
    store.ingest(c.id, imported, { mode: "append", index: "deferred" });
    const r = store.ingest(c.id, [...imported, user("next question")]);
    expect(r.alignment).toBe("position");
    expect(r.appended).toBe(1);
    const frontier = store.getFrontier(c.id);
    expect(frontier.items).toHaveLength(1501);
    expect(frontier.items.map((i) => i.ordinal)).toEqual(Array.from({ length: 1501 }, (_, i) => i));
    expect(frontier.tokens).toBe(store.getConversation(c.id)!.messageTokens);
  });

  it("append mode stores every message", () => {
    const { store } = fresh();
    const c = store.conversation("s");
    store.ingest(c.id, base);
    expect(store.ingest(c.id, base, { mode: "append" }).appended).toBe(5);
  });

  it("keeps conversations apart", () => {
    const { store } = fresh();
    const a = store.conversation("a");
    const b = store.conversation("b");
    store.ingest(a.id, base);
    expect(store.ingest(b.id, base).appended).toBe(5);
    expect(store.conversation("a").id).toBe(a.id);
    expect(store.listConversations().map((x) => x.sessionId)).toEqual(["a", "b"]);
  });
});

describe("store: redaction before storage", () => {
  it("never writes the secret to the database file", () => {
    const { store } = fresh();
    const c = store.conversation("s");
    const key = "sk-proj-ZZZZZZZZZZZZZZZZZZZZZZZZ9876";
    const r = store.ingest(c.id, [
      user(`use ${key} and postgres://admin:hunter22secret@db.local/app`),
      call("c1", "http", { headers: { Authorization: "Bearer abcdefghijklmnopqrstuvwx12345" } }),
      result("c1", "ok"),
    ]);
    expect(r.redactions).toMatchObject({ openai_key: 1, url_password: 1, bearer_token: 1 });
    sqliteHandle(store).pragma("wal_checkpoint(TRUNCATE)");
    const bytes = readFileSync(store.path).toString("latin1");
    expect(bytes).not.toContain("ZZZZZZZZZZZZ");
    expect(bytes).not.toContain("hunter22secret");
    expect(bytes).not.toContain("abcdefghijklmnopqrstuvwx12345");
    const m = store.getMessages(c.id);
    expect((m[0]!.message as { content: string }).content).toBe(
      "use [REDACTED:openai_key] and postgres://admin:[REDACTED:url_password]@db.local/app",
    );
    expect(m[0]!.redacted).toBe(true);
  });

  it("can be turned off", () => {
    const { store } = fresh({ redaction: false });
    const c = store.conversation("s");
    store.ingest(c.id, [user("key sk-proj-ZZZZZZZZZZZZZZZZZZZZZZZZ9876")]);
    expect(store.getMessages(c.id)[0]!.text).toContain("sk-proj-ZZZZ");
  });
});

describe("store: summaries, lineage and the frontier", () => {
  function setup() {
    const t = fresh();
    const c = t.store.conversation("s");
    const msgs = [sys("S"), user("u1"), asst("a1"), user("u2"), asst("a2"), user("u3"), asst("a3")];
    const r = t.store.ingest(c.id, msgs, { timestamps: msgs.map((_, i) => 1_000 + i * 10) });
    return { store: t.store, conv: c, ids: r.ids as number[] };
  }

  it("commits a leaf summary with lineage and swaps it into the frontier (CAS)", () => {
    const { store, conv, ids } = setup();
    const f = store.getFrontier(conv.id);
    expect(f.items).toHaveLength(7);
    const run = f.items.slice(1, 5);
    const res = store.commitSummary(
      { conversationId: conv.id, kind: "leaf", depth: 0, content: "u1..a2 summarised", tokens: 6, sourceMessageIds: ids.slice(1, 5) },
      { fromOrdinal: run[0]!.ordinal, toOrdinal: run[3]!.ordinal, expect: run },
    );
    expect(res.ok).toBe(true);
    if (!res.ok) return;
    expect(res.summary).toMatchObject({ firstSeq: 1, lastSeq: 4, earliestAt: 1010, latestAt: 1040, descendantMessages: 4 });
    expect(res.summary.sourceTokens).toBe(store.tokensInRange(conv.id, 1, 4));
    const after = store.getFrontier(conv.id);
    expect(after.items.map((i) => i.kind)).toEqual(["message", "summary", "message", "message"]);
    expect(after.version).toBe(f.version + 1);
    expect(after.tokens).toBe(after.items.reduce((a, i) => a + i.tokens, 0));
    expect(store.lineage(res.summary.id).messageIds).toEqual(ids.slice(1, 5));
    expect(store.summariesCoveringMessage(ids[2]!)).toEqual([res.summary.id]);
    // idempotent
    const again = store.commitSummary(
      { conversationId: conv.id, kind: "leaf", depth: 0, content: "u1..a2 summarised", tokens: 6, sourceMessageIds: ids.slice(1, 5) },
      { fromOrdinal: run[0]!.ordinal, toOrdinal: run[3]!.ordinal, expect: run },
    );
    expect(again.ok && again.summary.id).toBe(res.summary.id);
    expect(store.listSummaries(conv.id)).toHaveLength(1);
  });

  it("refuses a stale publish and leaves nothing behind", () => {
    const { store, conv, ids } = setup();
    const run = store.getFrontier(conv.id).items.slice(1, 3);
    store.setFrontier(conv.id, store.getFrontier(conv.id).items.slice(2));
    const res = store.commitSummary(
      { conversationId: conv.id, kind: "leaf", depth: 0, content: "late", tokens: 2, sourceMessageIds: ids.slice(1, 3) },
      { fromOrdinal: run[0]!.ordinal, toOrdinal: run[1]!.ordinal, expect: run },
    );
    expect(res).toMatchObject({ ok: false, reason: "frontier_changed" });
    expect(store.listSummaries(conv.id)).toHaveLength(0);
  });

  it("refuses a publish that would drop an uncovered item, and unknown sources", () => {
    const { store, conv, ids } = setup();
    const run = store.getFrontier(conv.id).items.slice(1, 4);
    const res = store.commitSummary(
      { conversationId: conv.id, kind: "leaf", depth: 0, content: "x", tokens: 1, sourceMessageIds: ids.slice(1, 3) },
      { fromOrdinal: run[0]!.ordinal, toOrdinal: run[2]!.ordinal, expect: run },
    );
    expect(res).toMatchObject({ ok: false, reason: "not_covered" });
    const other = store.conversation("other");
    const foreign = store.ingest(other.id, [user("z")]).ids[0]!;
    expect(store.commitSummary({ conversationId: conv.id, kind: "leaf", depth: 0, content: "x", tokens: 1, sourceMessageIds: [foreign] })).toMatchObject({
      ok: false,
      reason: "unknown_source",
    });
    expect(() => store.commitSummary({ conversationId: conv.id, kind: "leaf", depth: 0, content: "x", tokens: 1 })).toThrow(/leaf/);
  });

  it("condenses summaries into a deeper node and walks the DAG down to messages", () => {
    const { store, conv, ids } = setup();
    const leaf = (from: number, to: number, content: string) => {
      const items = store.getFrontier(conv.id).items;
      const run = items.filter((i) => i.kind === "message" && ids.slice(from, to + 1).includes(i.messageId));
      const r = store.commitSummary(
        { conversationId: conv.id, kind: "leaf", depth: 0, content, tokens: 3, sourceMessageIds: ids.slice(from, to + 1) },
        { fromOrdinal: run[0]!.ordinal, toOrdinal: run[run.length - 1]!.ordinal, expect: run },
      );
      if (!r.ok) throw new Error(r.detail);
      return r.summary;
    };
    const s1 = leaf(1, 2, "first");
    const s2 = leaf(3, 4, "second");
    const items = store.getFrontier(conv.id).items;
    const run = items.filter((i) => i.kind === "summary");
    expect(() =>
      store.commitSummary({ conversationId: conv.id, kind: "condensed", depth: 0, content: "both", tokens: 2, childSummaryIds: [s1.id, s2.id] }),
    ).toThrow(/depth/);
    const top = store.commitSummary(
      { conversationId: conv.id, kind: "condensed", depth: 1, content: "both", tokens: 2, childSummaryIds: [s1.id, s2.id] },
      { fromOrdinal: run[0]!.ordinal, toOrdinal: run[1]!.ordinal, expect: run },
    );
    expect(top.ok).toBe(true);
    if (!top.ok) return;
    expect(top.summary).toMatchObject({ depth: 1, firstSeq: 1, lastSeq: 4, descendantMessages: 4 });
    expect(store.descendantMessageIds(top.summary.id)).toEqual(ids.slice(1, 5));
    expect(store.lineage(s1.id).parentSummaryIds).toEqual([top.summary.id]);
    expect(store.getFrontier(conv.id).items.map((i) => (i.kind === "summary" ? i.summaryId : i.messageId))).toEqual([
      ids[0], top.summary.id, ids[5], ids[6],
    ]);
  });

  it("reads the frontier tail within a token budget", () => {
    const { store, conv } = setup();
    const all = store.getFrontier(conv.id).items;
    const lastTwo = all[5]!.tokens + all[6]!.tokens;
    expect(store.getFrontierTail(conv.id, lastTwo)).toEqual(all.slice(5));
    expect(store.getFrontierTail(conv.id, 0, { minItems: 1 })).toEqual(all.slice(6));
    expect(store.getFrontierTail(conv.id, 1e9)).toEqual(all);
  });

  it("setFrontier honours expectedVersion; appendToFrontier adds at the end", () => {
    const { store, conv, ids } = setup();
    const v = store.getFrontier(conv.id).version;
    expect(store.setFrontier(conv.id, [{ kind: "message", messageId: ids[6]! }], { expectedVersion: v - 1 })).toEqual({ ok: false, version: v });
    expect(store.setFrontier(conv.id, [{ kind: "message", messageId: ids[6]! }], { expectedVersion: v })).toEqual({ ok: true, version: v + 1 });
    store.appendToFrontier(conv.id, [{ kind: "message", messageId: ids[0]! }]);
    const f = store.getFrontier(conv.id);
    expect(f.items.map((i) => (i.kind === "message" ? i.messageId : 0))).toEqual([ids[6], ids[0]]);
    expect(f.tokens).toBe(f.items.reduce((a, i) => a + i.tokens, 0));
    expect(() => store.setFrontier(conv.id, [{ kind: "message", messageId: 99999 }])).toThrow(/not in conversation/);
  });

  it("ingest can leave the frontier alone", () => {
    const { store, conv } = setup();
    const before = store.getFrontier(conv.id);
    store.ingest(conv.id, [user("later")], { mode: "append", appendToFrontier: false });
    expect(store.getFrontier(conv.id).items).toEqual(before.items);
  });
});

describe("store: file, WAL and migrations", () => {
  it("uses WAL, survives reopen and refuses a newer schema", () => {
    const { store, dir } = fresh();
    const c = store.conversation("s");
    store.ingest(c.id, [user("persist me")]);
    expect(sqliteHandle(store).pragma("journal_mode", { simple: true })).toBe("wal");
    const path = store.path;
    store.close();
    const again = openLcmStore({ path });
    expect(again.getMessages(again.conversation("s").id)[0]!.text).toBe("persist me");
    expect(sqliteHandle(again).pragma("user_version", { simple: true })).toBe(again.schemaVersion);
    again.close();
    const raw = pinNativeObjects(new Database(path));
    raw.pragma("user_version = 999");
    raw.close();
    expect(() => openLcmStore({ path })).toThrow(/newer than this engine supports/);
    expect(dir).toBeTruthy();
  });
});
