import { afterEach, describe, expect, it } from "vitest";
import { searchHistory } from "../src/search/index.js";
import { requiredLiteral } from "../src/search/regex-literal.js";
import { asst, tempStore, user } from "./helpers.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

const BUDGET_MS = 250;
// Generous slack for a loaded 2-core machine (CI runs every suite at once): a backtracking engine takes minutes
// to hours on these patterns and inputs, the linear-time one a fraction of a second.
const WALL_MS = 10_000;

describe("regex mode is linear-time and bounded", () => {
  it("returns within the bound for catastrophic patterns on 100 kB messages", async () => {
    const t = tempStore({ redaction: false });
    cleanups.push(t.cleanup);
    const c = t.store.conversation("s");
    const big = [user("a".repeat(100_000)), asst("x".repeat(100_000)), user(`${"a".repeat(50_000)}${"w".repeat(50_000)}`)];
    t.store.ingest(c.id, [...big, ...big, ...big]);
    for (const pattern of ["a*a*a*a*a*b", "\\w*\\w*\\w*b", "(a+)+b", "(a|aa)*b", "(.*a){12}b"]) {
      const started = performance.now();
      const r = await searchHistory(t.store, { query: pattern, mode: "regex", conversationId: c.id, regexTimeBudgetMs: BUDGET_MS });
      expect(performance.now() - started, pattern).toBeLessThan(WALL_MS);
      expect(r.hits, pattern).toHaveLength(0);
      if (!r.complete) expect(r.nextCursor).not.toBeNull();
    }
  });

  it("refuses what RE2 cannot run in linear time, with a clear error", async () => {
    const t = tempStore();
    cleanups.push(t.cleanup);
    const c = t.store.conversation("s");
    t.store.ingest(c.id, [user("ab")]);
    const run = (query: string) => searchHistory(t.store, { query, mode: "regex", conversationId: c.id });
    await expect(run("(?<=a+)b")).rejects.toThrow(/lookbehind/);
    await expect(run("a(?=b)")).rejects.toThrow(/lookahead/);
    await expect(run("(a)\\1")).rejects.toThrow(/backreference/);
    await expect(run("a{1,30000}b")).rejects.toThrow(/invalid pattern/);
    await expect(run("([a-z]")).rejects.toThrow(/invalid pattern/);
  });

  it("finds a match in the oldest message of a long conversation through the literal prefilter", async () => {
    const t = tempStore({ redaction: false });
    cleanups.push(t.cleanup);
    const c = t.store.conversation("s");
    const msgs = [user("the build id was XQZ-4411-final after the fix")];
    for (let i = 0; i < 20_000; i++) msgs.push(asst(`step ${i}: compiled module m${i} with warnings ${i % 7}`));
    t.store.ingest(c.id, msgs, { index: "deferred", mode: "append" });
    const r = await searchHistory(t.store, { query: "XQZ-\\d{4}-fin", mode: "regex", conversationId: c.id, scope: "messages" });
    expect(r.hits.map((h) => h.seq)).toEqual([0]);
    expect(r.complete).toBe(true);
  });

  it("continues a scan stopped by its bound from the cursor, without losing rows", async () => {
    const t = tempStore({ redaction: false });
    cleanups.push(t.cleanup);
    const c = t.store.conversation("s");
    const msgs = [];
    for (let i = 0; i < 3_000; i++) msgs.push(user(`row ${i} ${i % 500 === 0 ? `mark${i}q` : "plain"}`));
    t.store.ingest(c.id, msgs, { mode: "append" });
    const seen: number[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 100; i++) {
      const r = await searchHistory(t.store, { query: "mark\\d+q", mode: "regex", conversationId: c.id, regexRowCap: 100, limit: 50, cursor, scope: "messages" });
      seen.push(...r.hits.map((h) => h.seq!));
      cursor = r.nextCursor;
      if (!cursor) break;
    }
    expect(seen).toEqual([2500, 2000, 1500, 1000, 500, 0]);
  });

  it("extracts required literals conservatively", async () => {
    expect(requiredLiteral("XQZ-\\d{4}-fin")).toBe("XQZ-");
    expect(requiredLiteral("foo|barbaz")).toBeNull();
    expect(requiredLiteral("abcd?e")).toBe("abc");
    expect(requiredLiteral("retry\\.ts")).toBe("retry.ts");
    expect(requiredLiteral("abc+d")).toBe("abc");
    expect(requiredLiteral("ab+c")).toBeNull();
    expect(requiredLiteral("[xyz]+")).toBeNull();
  });
});
