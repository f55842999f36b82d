import { describe, expect, it } from "vitest";
import {
  ChatModelError,
  MessageSchema,
  UsageSchema,
  checkConversation,
  contentText,
  lastUserMessage,
  normalizeUsage,
  parseToolArguments,
  ToolSchemaSchema,
} from "../src/index.js";
import { z } from "zod";

describe("message schemas", () => {
  it("accepts every role and keeps unknown fields", () => {
    const msgs = [
      { role: "system", content: "sys", cache_control: { type: "ephemeral" } },
      { role: "user", content: [{ type: "text", text: "look" }, { type: "image_url", image_url: { url: "data:x" } }] },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{}" } }], reasoning: "hmm" },
      { role: "tool", tool_call_id: "c1", content: "a.txt", name: "ls" },
    ];
    for (const m of msgs) {
      const parsed = MessageSchema.parse(m);
      expect(parsed).toEqual(m);
    }
  });

  it("rejects unknown roles and bad content", () => {
    expect(MessageSchema.safeParse({ role: "robot", content: "x" }).success).toBe(false);
    expect(MessageSchema.safeParse({ role: "user", content: 42 }).success).toBe(false);
    expect(MessageSchema.safeParse({ role: "tool", content: "x" }).success).toBe(false);
  });

  it("extracts text from content", () => {
    expect(contentText("abc")).toBe("abc");
    expect(contentText([{ type: "text", text: "a" }, { type: "image_url", image_url: { url: "u" } }, { type: "text", text: "b" }])).toBe("a\nb");
    expect(contentText(null)).toBe("");
  });

  it("finds the last user message", () => {
    expect(lastUserMessage([{ role: "user", content: "a" }, { role: "assistant", content: "b" }])?.index).toBe(0);
    expect(lastUserMessage([{ role: "system", content: "s" }])).toBeNull();
  });
});

describe("usage", () => {
  it("validates the classic figures and optional buckets", () => {
    expect(UsageSchema.safeParse({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3, cache_read_tokens: 1 }).success).toBe(true);
    expect(UsageSchema.safeParse({ prompt_tokens: 1, completion_tokens: 2 }).success).toBe(false);
    expect(UsageSchema.safeParse({ prompt_tokens: -1, completion_tokens: 2, total_tokens: 1 }).success).toBe(false);
  });

  it("normalises partial usage", () => {
    expect(normalizeUsage({})).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
    expect(normalizeUsage({ prompt_tokens: 10, completion_tokens: 5 })).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
    expect(normalizeUsage({ input_tokens: 7, output_tokens: 3, reasoning_tokens: 1, bogus: 1, cache_read_tokens: "x" })).toEqual({
      prompt_tokens: 7, completion_tokens: 3, total_tokens: 10, input_tokens: 7, output_tokens: 3, reasoning_tokens: 1,
    });
    expect(normalizeUsage(null)).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
  });
});

describe("checkConversation", () => {
  const call = (id: string) => ({ id, type: "function" as const, function: { name: "f", arguments: "{}" } });

  it("accepts a valid conversation with parallel calls", () => {
    expect(
      checkConversation([
        { role: "system", content: "s" },
        { role: "user", content: "u" },
        { role: "assistant", content: "", tool_calls: [call("a"), call("b")] },
        { role: "tool", tool_call_id: "b", content: "rb" },
        { role: "tool", tool_call_id: "a", content: "ra" },
        { role: "assistant", content: "done" },
      ]),
    ).toEqual([]);
  });

  it("names each problem with its index", () => {
    const problems = checkConversation([
      { role: "user", content: "u" },
      { role: "tool", tool_call_id: "zzz", content: "orphan" },
      { role: "assistant", content: null, tool_calls: [call("c1")] },
      { role: "user", content: "moved on" },
      { role: "wizard", content: "?" },
      { role: "user", content: 5 },
      "junk",
    ]);
    expect(problems.map((p) => [p.index, p.code])).toEqual([
      [1, "orphan_tool_result"],
      [2, "missing_tool_result"],
      [4, "unknown_role"],
      [5, "bad_content"],
      [6, "not_an_object"],
    ]);
    expect(problems[0]!.message).toContain("message 1");
  });

  it("allows a trailing in-flight call unless told otherwise", () => {
    const msgs = [
      { role: "user", content: "u" },
      { role: "assistant", content: null, tool_calls: [call("c1"), call("c2")] },
      { role: "tool", tool_call_id: "c1", content: "r" },
    ];
    expect(checkConversation(msgs)).toEqual([]);
    expect(checkConversation(msgs, { allowTrailingInFlightCall: false }).map((p) => p.code)).toEqual(["missing_tool_result"]);
  });

  it("flags a result separated from its call and duplicate ids", () => {
    const problems = checkConversation([
      { role: "assistant", content: null, tool_calls: [call("c1")] },
      { role: "tool", tool_call_id: "c1", content: "r" },
      { role: "user", content: "u" },
      { role: "tool", tool_call_id: "c1", content: "late" },
      { role: "assistant", content: null, tool_calls: [call("c1")] },
      { role: "tool", tool_call_id: "c1", content: "r" },
    ]);
    expect(problems.map((p) => [p.index, p.code])).toEqual([
      [3, "tool_result_out_of_place"],
      [4, "duplicate_tool_call_id"],
    ]);
  });
});

describe("tool helpers", () => {
  it("validates tool schemas", () => {
    expect(ToolSchemaSchema.safeParse({ name: "lcm_grep", description: "d", parameters: { type: "object", properties: {} } }).success).toBe(true);
    expect(ToolSchemaSchema.safeParse({ name: "bad name", parameters: { type: "object" } }).success).toBe(false);
    expect(ToolSchemaSchema.safeParse({ name: "x", parameters: { type: "string" } }).success).toBe(false);
  });

  it("parses JSON-string or object arguments and reports bad ones as JSON errors", () => {
    const schema = z.object({ query: z.string().min(1), limit: z.number().int().optional() });
    expect(parseToolArguments("t", schema, '{"query":"a"}')).toEqual({ ok: true, data: { query: "a" } });
    expect(parseToolArguments("t", schema, { query: "b", limit: 2 })).toEqual({ ok: true, data: { query: "b", limit: 2 } });
    const bad = parseToolArguments("t", schema, "{not json");
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(JSON.parse(bad.error).error).toMatch(/not valid JSON/);
    const missing = parseToolArguments("t", schema, {});
    if (!missing.ok) expect(JSON.parse(missing.error).error).toMatch(/query/);
    else throw new Error("expected failure");
  });
});

describe("ChatModelError", () => {
  it("carries a kind and is recognised structurally", () => {
    const e = new ChatModelError("auth", "bad key", { status: 401 });
    expect(e.kind).toBe("auth");
    expect(e.status).toBe(401);
    expect(ChatModelError.is(e)).toBe(true);
    const foreign = Object.assign(new Error("x"), { name: "ChatModelError", kind: "quota" });
    expect(ChatModelError.is(foreign)).toBe(true);
    expect(ChatModelError.is(new Error("x"))).toBe(false);
  });
});
