import { afterEach, describe, expect, it } from "vitest";
import { searchHistory } from "../src/search/index.js";
import { asst, call, result, sys, tempStore, user } from "./helpers.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

function corpus() {
  const t = tempStore();
  cleanups.push(t.cleanup);
  const { store } = t;
  const a = store.conversation("alpha");
  const b = store.conversation("beta");
  const day = 86_400_000;
  const msgs = [
    sys("You are a coding agent."),
    user("The deploy failed with a timeout in the payment service."),
    call("c1", "read_file", { path: "src/payment/retry.ts" }),
    result("c1", "export const MAX_RETRY_COUNT = 7; // retry the payment request"),
    asst("The retry budget is MAX_RETRY_COUNT = 7; the timeout is 30 seconds."),
    user("静默模式已经启动，请检查配置文件中的超时设置"),
    asst("好的，我会检查超时设置。"),
    user("Let us talk about the weather instead: sunny and warm."),
    asst("Timeout timeout timeout: the word appears many times here, timeout."),
  ];
  const ra = store.ingest(a.id, msgs, { timestamps: msgs.map((_, i) => 1_700_000_000_000 + i * day) });
  store.ingest(b.id, [user("In beta we discuss the payment timeout too."), asst("Beta answer about invoices.")]);
  return { store, a, b, ids: ra.ids as number[] };
}

describe("full-text search", () => {
  it("ranks by BM25 within the current conversation and gives snippets", async () => {
    const { store, a } = corpus();
    const r = await searchHistory(store, { query: "timeout", conversationId: a.id });
    expect(r.hits.length).toBeGreaterThanOrEqual(3);
    expect(r.hits.every((h) => h.conversationId === a.id)).toBe(true);
    expect(r.hits[0]!.snippet.toLowerCase()).toContain("«timeout»");
    expect((r.hits[0]!.snippet.match(/«/g) ?? []).length).toBeGreaterThan(1); // the repetitive message ranks first
    expect(r.hits.map((h) => h.score!)).toEqual([...r.hits.map((h) => h.score!)].sort((x, y) => y - x));
  });

  it("searches every conversation only when asked", async () => {
    const { store, a } = corpus();
    const scoped = await searchHistory(store, { query: "invoices", conversationId: a.id });
    expect(scoped.hits).toHaveLength(0);
    const all = await searchHistory(store, { query: "invoices", conversationId: null });
    expect(all.hits).toHaveLength(1);
    expect(all.hits[0]!.sessionId).toBe("beta");
  });

  it("finds identifiers, tool-call arguments and phrases; excludes words", async () => {
    const { store, a, ids } = corpus();
    expect((await searchHistory(store, { query: "MAX_RETRY_COUNT", conversationId: a.id })).hits.map((h) => h.messageId).sort()).toEqual([ids[3], ids[4]].sort());
    expect((await searchHistory(store, { query: "src/payment/retry.ts", conversationId: a.id })).hits.map((h) => h.messageId)).toContain(ids[2]);
    expect((await searchHistory(store, { query: '"payment service"', conversationId: a.id })).hits.map((h) => h.messageId)).toEqual([ids[1]]);
    const excl = (await searchHistory(store, { query: "payment -deploy", conversationId: a.id })).hits.map((h) => h.messageId);
    expect(excl).not.toContain(ids[1]);
    expect(excl.length).toBeGreaterThan(0);
    expect((await searchHistory(store, { query: "retr*", conversationId: a.id })).hits.length).toBeGreaterThanOrEqual(2);
  });

  it("ranks any-word matches by default, and requires every word with AND", async () => {
    const { store, a, ids } = corpus();
    const r = await searchHistory(store, { query: "weather invoices zebra", conversationId: a.id });
    expect(r.hits.map((h) => h.messageId)).toEqual([ids[7]]);
    const both = (await searchHistory(store, { query: "payment timeout", conversationId: a.id, scope: "messages" })).hits.map((h) => h.messageId);
    expect(both[0]).toBe(ids[1]); // the only message with both words ranks first
    expect(both.length).toBeGreaterThan(2); // messages with one of them follow
    expect((await searchHistory(store, { query: "payment AND timeout", conversationId: a.id, scope: "messages" })).hits.map((h) => h.messageId)).toEqual([ids[1]]);
  });

  it("finds Chinese text by substring (trigram), including two-character words", async () => {
    const { store, a, ids } = corpus();
    expect((await searchHistory(store, { query: "静默模式", conversationId: a.id })).hits.map((h) => h.messageId)).toEqual([ids[5]]);
    expect((await searchHistory(store, { query: "静默", conversationId: a.id })).hits.map((h) => h.messageId)).toEqual([ids[5]]);
    const both = (await searchHistory(store, { query: "超时设置", conversationId: a.id })).hits.map((h) => h.messageId);
    expect(both.sort()).toEqual([ids[5], ids[6]].sort());
    expect((await searchHistory(store, { query: "静默模式", conversationId: a.id })).hits[0]!.snippet).toContain("«");
  });

  it("filters by role and time and paginates with a cursor", async () => {
    const { store, a } = corpus();
    const roles = await searchHistory(store, { query: "timeout", conversationId: a.id, roles: ["assistant"] });
    expect(roles.hits.every((h) => h.role === "assistant")).toBe(true);
    const since = await searchHistory(store, { query: "timeout", conversationId: a.id, since: 1_700_000_000_000 + 3 * 86_400_000 });
    expect(since.hits.every((h) => h.createdAt >= 1_700_000_000_000 + 3 * 86_400_000)).toBe(true);
    const all = (await searchHistory(store, { query: "timeout", conversationId: a.id, limit: 100 })).hits.map((h) => h.ref);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await searchHistory(store, { query: "timeout", conversationId: a.id, limit: 1, cursor });
      seen.push(...page.hits.map((h) => h.ref));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all);
    await expect(searchHistory(store, { query: "payment", conversationId: a.id, cursor: (await searchHistory(store, { query: "timeout", conversationId: a.id, limit: 1 })).nextCursor })).rejects.toThrow(/different query/);
  });

  it("searches summaries and reports which summary covers a compacted message", async () => {
    const { store, a, ids } = corpus();
    const items = store.getFrontier(a.id).items;
    const run = items.slice(1, 5);
    const s = store.commitSummary(
      { conversationId: a.id, kind: "leaf", depth: 0, content: "Deploy failed: payment timeout; MAX_RETRY_COUNT is 7.", tokens: 12, sourceMessageIds: ids.slice(1, 5) },
      { fromOrdinal: run[0]!.ordinal, toOrdinal: run[3]!.ordinal, expect: run },
    );
    if (!s.ok) throw new Error(s.detail);
    const r = await searchHistory(store, { query: "MAX_RETRY_COUNT", conversationId: a.id });
    // Its source message holds the word: the message stands for the summary in a mixed search.
    expect(r.hits.some((h) => h.type === "summary")).toBe(false);
    const sum = (await searchHistory(store, { query: "MAX_RETRY_COUNT", conversationId: a.id, scope: "summaries" })).hits[0];
    expect(sum?.ref).toBe(s.summary.id);
    const msg = r.hits.find((h) => h.type === "message" && h.messageId === ids[3]);
    expect(msg?.inContext).toBe(false);
    expect(msg?.coveredBy).toEqual([s.summary.id]);
    const only = await searchHistory(store, { query: "MAX_RETRY_COUNT", conversationId: a.id, scope: "messages" });
    expect(only.hits.every((h) => h.type === "message")).toBe(true);
  });

  it("rejects queries with nothing searchable", async () => {
    const { store, a } = corpus();
    await expect(searchHistory(store, { query: "!!! ...", conversationId: a.id })).rejects.toThrow(/no searchable words/);
  });
});

describe("regex search", () => {
  it("matches over content and tool calls, newest first", async () => {
    const { store, a, ids } = corpus();
    const r = await searchHistory(store, { query: "MAX_RETRY_COUNT\\s*=\\s*\\d+", mode: "regex", conversationId: a.id });
    expect(r.hits.map((h) => h.messageId)).toEqual([ids[4], ids[3]]);
    expect(r.complete).toBe(true);
    expect(r.hits[0]!.snippet).toContain("«MAX_RETRY_COUNT = 7»");
    expect((await searchHistory(store, { query: "retry\\.ts", mode: "regex", conversationId: a.id })).hits.map((h) => h.messageId)).toEqual([ids[2]]);
  });

  it("stops at the row cap and continues from the cursor without losing or repeating rows", async () => {
    const t = tempStore();
    cleanups.push(t.cleanup);
    const c = t.store.conversation("big");
    const msgs = Array.from({ length: 600 }, (_, i) => user(i % 50 === 0 ? `marker-${i}` : `filler ${i}`));
    t.store.ingest(c.id, msgs, { mode: "append" });
    const found: string[] = [];
    let cursor: string | null = null;
    let calls = 0;
    do {
      // No literal of three characters: a real scan, stopped by the row cap.
      const r = await searchHistory(t.store, { query: "[m][a][r][k][e]r-\\d+", mode: "regex", conversationId: c.id, regexRowCap: 100, limit: 50, cursor, scope: "messages" });
      found.push(...r.hits.map((h) => h.snippet.replace(/[«»…]/g, "")));
      cursor = r.nextCursor;
      if (cursor) expect(r.complete).toBe(false);
      calls++;
    } while (cursor && calls < 20);
    expect(calls).toBeGreaterThan(1);
    expect(found.map((s) => s.trim())).toEqual(Array.from({ length: 12 }, (_, i) => `marker-${(11 - i) * 50}`));
  });

  it("runs formerly catastrophic patterns (linear-time RE2) and refuses invalid ones", async () => {
    const { store, a } = corpus();
    expect((await searchHistory(store, { query: "(a+)+$", mode: "regex", conversationId: a.id })).complete).toBe(true);
    expect((await searchHistory(store, { query: "(a|ab)*c", mode: "regex", conversationId: a.id })).complete).toBe(true);
    await expect(searchHistory(store, { query: "([a-z]", mode: "regex", conversationId: a.id })).rejects.toThrow(/invalid pattern/);
  });
});

describe("regex narrowing by a required word", () => {
  it("extracts only words the pattern cannot match without", async () => {
    const { requiredWord } = await import("../src/search/regex-literal.js");
    expect(requiredWord("\\bCANARY-[a-z0-9]+")).toBe("CANARY");
    expect(requiredWord("MAX_RETRY_COUNT\\s*=\\s*\\d+")).toBe("RETRY");
    expect(requiredWord("^error: (\\w+) failed\\b")).toBe("failed");
    for (const p of ["CANARY-\\d+", "foo|bar", "\\bfooo?\\b", "x\\bfoo-?bar", "(hello)", "\\bhel+o\\b", "\\bab\\b"]) expect(requiredWord(p)).toBeNull();
  });

  it("finds matches inside tool-call arguments and large payloads through the index", async () => {
    const t = tempStore({ payloadThresholdBytes: 256 });
    cleanups.push(t.cleanup);
    const c = t.store.conversation("s");
    const ids = t.store.ingest(c.id, [
      call("k1", "deploy", { target: "prod-eu", token_ref: "VAULT-7731" }),
      result("k1", `${"noise ".repeat(100)}\nVAULT-9999 rotated`),
      user("nothing here"),
    ]).ids as number[];
    const r = await searchHistory(t.store, { query: "\\bVAULT-\\d{4}\\b", mode: "regex", conversationId: c.id });
    expect(r.notes.join(" ")).toMatch(/narrowed/);
    expect(r.hits.map((h) => h.messageId)).toEqual([ids[1], ids[0]]);
  });
});
