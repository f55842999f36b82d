import { ToolSchemaSchema, type Message } from "@context-engine/core";
import { afterEach, describe, expect, it } from "vitest";
import { handleLcmToolCall, isLcmTool, lcmToolSchemas } from "../src/tools/index.js";
import { asst, call, result, sys, tempStore, user } from "./helpers.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

function setup() {
  const t = tempStore();
  cleanups.push(t.cleanup);
  const { store } = t;
  const conv = store.conversation("main");
  const msgs: Message[] = [sys("S")];
  for (let i = 0; i < 30; i++) {
    msgs.push(user(`question ${i} about the ledger reconciliation step ${i}`));
    msgs.push(call(`c${i}`, "run_query", { sql: `SELECT * FROM ledger WHERE batch = ${i}` }));
    msgs.push(result(`c${i}`, `batch ${i}: ${"row ".repeat(40)}total=${i * 100}`));
    msgs.push(asst(`Batch ${i} reconciles to ${i * 100}.`));
  }
  const r = store.ingest(conv.id, msgs);
  const ids = r.ids as number[];
  // summarise messages 1..60 into one leaf
  const items = store.getFrontier(conv.id).items.slice(1, 61);
  const leaf = store.commitSummary(
    { conversationId: conv.id, kind: "leaf", depth: 0, content: "Batches 0-14 reconciled; totals in tool results.", tokens: 12, sourceMessageIds: ids.slice(1, 61) },
    { fromOrdinal: items[0]!.ordinal, toOrdinal: items[59]!.ordinal, expect: items },
  );
  if (!leaf.ok) throw new Error(leaf.detail);
  const other = store.conversation("other");
  const otherIds = store.ingest(other.id, [user("secret plans in another session about ledger")]).ids as number[];
  const ctx = { conversationId: conv.id, allowCrossConversation: true };
  const run = async (name: string, args: unknown) => JSON.parse(await handleLcmToolCall(store, name, args, ctx)) as Record<string, any>;
  return { store, conv, ids, leaf: leaf.summary, run, otherIds, msgs };
}

describe("tool schemas", () => {
  it("are valid bare function schemas, one per tool", async () => {
    const schemas = lcmToolSchemas();
    expect(schemas.map((s) => s.name)).toEqual(["lcm_grep", "lcm_describe", "lcm_expand"]);
    for (const s of schemas) expect(ToolSchemaSchema.safeParse(s).success).toBe(true);
    expect(isLcmTool("lcm_grep")).toBe(true);
    expect(isLcmTool("grep")).toBe(false);
  });
});

describe("argument validation", () => {
  it("returns JSON errors naming the field, never throws", async () => {
    const { run, store } = setup();
    expect((await run("lcm_grep", {})).error).toMatch(/query/);
    expect((await run("lcm_grep", { query: "x", limit: 0 })).error).toMatch(/limit/);
    expect((await run("lcm_grep", { query: "x", bogus: 1 })).error).toMatch(/bogus|Unrecognized/i);
    expect((await run("lcm_grep", "{not json")).error).toMatch(/not valid JSON/);
    expect((await run("lcm_describe", { id: "nonsense" })).error).toMatch(/not a summary id/);
    expect((await run("lcm_expand", { id: "sum_0000000000000000" })).error).toMatch(/no summary/);
    expect((await run("lcm_grep", { query: "(?<=a+)b", mode: "regex" })).error).toMatch(/lookbehind/);
    expect((await run("lcm_grep", { query: "x", since: "yesterday-ish" })).error).toMatch(/since/);
    expect(JSON.parse(await handleLcmToolCall(store, "lcm_nope", {}, { conversationId: 1 })).error).toMatch(/Unknown/);
  });

  it("says so when the arguments are null, a list or null-valued fields", async () => {
    const { run } = setup();
    for (const args of [null, "null"]) expect((await run("lcm_grep", args)).error).toMatch(/^lcm_grep got null for its arguments; it takes an object\. lcm_grep needs `query`: /);
    expect((await run("lcm_grep", [])).error).toBe(
      "lcm_grep takes an object of named arguments (`query` (required), `mode`, `scope`, `all_conversations`, `roles`, `since`, `before`, `sort`, `limit`, `cursor`, `ignore_case`, `recency_boost`, `exclude_in_context`); it got an empty list.",
    );
    expect((await run("lcm_grep", { query: null })).error).toBe("lcm_grep: `query` must be a string; it was null.");
    expect((await run("lcm_grep", { query: "x", roles: null })).error).toMatch(/^lcm_grep: `roles` must be a list of "system", .* or "tool"; it was null\.$/);
    expect((await run("lcm_expand", null)).error).toMatch(/^lcm_expand got null for its arguments/);
  });

  it("says in plain words what each tool expects and what it got", async () => {
    const { run } = setup();
    expect((await run("lcm_grep", {})).error).toBe(
      "lcm_grep needs `query`: words or a question (full_text), or an RE2 regular expression (regex) (a string); it was missing.",
    );
    expect((await run("lcm_grep", { query: "x", limit: 0 })).error).toBe("lcm_grep: `limit` must be a whole number from 1 to 50; it was 0.");
    expect((await run("lcm_grep", { query: "x", mode: "fuzzy" })).error).toBe('lcm_grep: `mode` must be one of "full_text", "regex" or "semantic"; it was "fuzzy".');
    expect((await run("lcm_grep", { qeury: "x" })).error).toMatch(/lcm_grep has no argument `qeury` \(did you mean `query`\?\); it takes `query`, `mode`/);
    expect((await run("lcm_describe", { id: -3 })).error).toBe("lcm_describe: `id` must be a string or a whole number of at least 1; it was -3.");
    expect((await run("lcm_expand", { id: "sum_1", max_tokens: 5 })).error).toBe("lcm_expand: `max_tokens` must be a whole number from 100 to 50000; it was 5.");
    expect((await run("lcm_describe", {})).error).toMatch(/^lcm_describe needs `id`: a summary id \(sum_…\) or a message ref/);
  });
});

describe("lcm_grep", () => {
  it("finds compacted content, says which summary covers it, and accepts JSON-string arguments", async () => {
    const { run, leaf } = setup();
    const r = (await run("lcm_grep", JSON.stringify({ query: "total=300" })));
    const hit = r.hits.find((h: any) => h.type === "message");
    expect(hit.snippet).toContain("300");
    expect(hit.in_context).toBe(false);
    expect(hit.covered_by).toEqual([leaf.id]);
    expect(r.complete).toBe(true);
  });

  it("stays in the current conversation unless asked", async () => {
    const { run } = setup();
    expect((await run("lcm_grep", { query: "secret plans" })).hits).toHaveLength(0);
    const all = (await run("lcm_grep", { query: "secret plans", all_conversations: true }));
    expect(all.hits).toHaveLength(1);
    expect(all.hits[0].session).toBe("other");
  });
});

describe("lcm_describe", () => {
  it("describes a summary with its span, tokens and lineage", async () => {
    const { run, leaf, ids } = setup();
    const d = (await run("lcm_describe", { id: leaf.id }));
    expect(d).toMatchObject({ type: "summary", kind: "leaf", depth: 0, covers_messages: 60, in_context: true, seq_span: { first: 1, last: 60 } });
    expect(d.source_messages).toHaveLength(50);
    expect(d.source_messages_total).toBe(60);
    expect(d.source_messages[0]).toBe(`msg_${ids[1]}`);
    expect(d.source_tokens).toBeGreaterThan(d.tokens);
  });

  it("describes a message, and refuses another conversation's ids unless asked", async () => {
    const { run, ids, leaf, otherIds } = setup();
    const d = (await run("lcm_describe", { id: `msg_${ids[2]}` }));
    expect(d).toMatchObject({ type: "message", role: "assistant", tool_calls: ["c0"], in_context: false, covered_by: [leaf.id] });
    expect((await run("lcm_describe", { id: otherIds[0] })).error).toMatch(/another conversation/);
    expect((await run("lcm_describe", { id: otherIds[0], all_conversations: true })).type).toBe("message");
  });
});

describe("lcm_expand", () => {
  it("recovers every original message under a summary, page by page within the budget", async () => {
    const { run, leaf, msgs } = setup();
    const got: any[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = (await run("lcm_expand", { id: leaf.id, max_tokens: 300, ...(cursor ? { cursor } : {}) }));
      expect(r.tokens).toBeLessThanOrEqual(300);
      expect(r.total_messages).toBe(60);
      got.push(...r.messages);
      cursor = r.nextCursor ?? undefined;
      pages++;
    } while (cursor && pages < 100);
    expect(pages).toBeGreaterThan(2);
    expect(got.map((m) => m.seq)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    // verbatim: content and tool calls
    for (const m of got) {
      const original = msgs[m.seq] as any;
      if (original.tool_calls) expect(m.tool_calls[0]).toMatchObject({ id: original.tool_calls[0].id, arguments: original.tool_calls[0].function.arguments });
      else expect(m.content).toBe(original.content);
    }
  });

  it("reads a message larger than the budget in parts, losslessly", async () => {
    const t = tempStore();
    cleanups.push(t.cleanup);
    const conv = t.store.conversation("s");
    const big = Array.from({ length: 400 }, (_, i) => `line ${i}: some log output here`).join("\n");
    const ids = t.store.ingest(conv.id, [user("dump"), result("x", big)]).ids as number[];
    let text = "";
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = JSON.parse(await handleLcmToolCall(t.store, "lcm_expand", { id: `msg_${ids[1]}`, max_tokens: 500, ...(cursor ? { cursor } : {}) }, { conversationId: conv.id }));
      expect(r.messages).toHaveLength(1);
      text += r.messages[0].content;
      cursor = r.nextCursor ?? undefined;
      pages++;
    } while (cursor && pages < 100);
    expect(pages).toBeGreaterThan(3);
    expect(text).toBe(big);
  });

  it("expands a message with its neighbours and rejects a foreign cursor", async () => {
    const { run, ids, leaf } = setup();
    const r = (await run("lcm_expand", { id: `msg_${ids[10]}`, around: 2 }));
    expect(r.messages.map((m: any) => m.seq)).toEqual([8, 9, 10, 11, 12]);
    const page = (await run("lcm_expand", { id: leaf.id, max_tokens: 100 }));
    expect((await run("lcm_expand", { id: `msg_${ids[10]}`, cursor: page.nextCursor })).error).toMatch(/cursor/);
  });
});
