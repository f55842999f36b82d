import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Message } from "../src/index.js";
import { checkCompressResult, checkConversation, checkList, checkSelectionResult, contentText, exceedsDepth } from "../src/index.js";

const request: Message[] = [
  { role: "system", content: "sys" },
  { role: "user", content: "earlier" },
  { role: "assistant", content: "sure" },
  { role: "user", content: "now" },
];
const incoming = request[3]!;
const FATAL = new Set(["not_an_object", "unknown_role", "bad_content", "bad_tool_call", "duplicate_tool_call_id", "orphan_tool_result", "tool_result_out_of_place"]);

// Messages that look real often enough to reach the deeper checks.
const role = fc.constantFrom("system", "developer", "user", "assistant", "tool", "wizard", undefined);
const content = fc.oneof(fc.string(), fc.constant("now"), fc.jsonValue(), fc.array(fc.record({ type: fc.constantFrom("text", "image_url"), text: fc.string() })));
const toolCall = fc.record({ id: fc.constantFrom("a", "b", "c"), type: fc.constant("function"), function: fc.record({ name: fc.string(), arguments: fc.string() }) });
const message = fc.oneof(
  fc.record({ role, content }, { requiredKeys: [] }),
  fc.record({ role: fc.constant("assistant"), content: fc.option(fc.string()), tool_calls: fc.array(toolCall, { maxLength: 2 }) }),
  fc.record({ role: fc.constant("tool"), tool_call_id: fc.option(fc.constantFrom("a", "b", "c")), content: fc.string() }),
  fc.jsonValue(),
);
const candidate = fc.oneof(fc.jsonValue(), fc.array(message, { maxLength: 8 }), fc.array(message, { maxLength: 6 }).map((tail) => [...request, ...tail]));

describe("checkSelectionResult on arbitrary JSON", () => {
  it("never throws, and what it accepts is a valid conversation with the host's system prefix and the turn's message", () => {
    fc.assert(
      fc.property(candidate, (value) => {
        const check = checkSelectionResult(value, { request, incoming });
        if (!check.ok) {
          expect(typeof check.reason).toBe("string");
          return;
        }
        expect(checkConversation(check.messages).filter((p) => FATAL.has(p.code))).toEqual([]);
        expect(check.messages[0]).toEqual(request[0]);
        expect(check.messages.filter((m) => m.role === "system" || m.role === "developer")).toEqual([request[0]]);
        expect(check.messages.some((m) => m.role === "user" && m.content === "now")).toBe(true);
        // A copy: no object of the engine's value is reused.
        if (Array.isArray(value)) expect(check.messages).not.toBe(value);
      }),
      { numRuns: 500 },
    );
  });

  it("accepts the request itself and a pure reduction of it", () => {
    expect(checkSelectionResult(request, { request, incoming }).ok).toBe(true);
    expect(checkSelectionResult([request[0], request[3]], { request, incoming }).ok).toBe(true);
  });

  it("refuses every change to system messages", () => {
    const changes = [
      [request[0], { role: "system", content: "more" }, ...request.slice(1)],
      [{ role: "system", content: "other" }, ...request.slice(1)],
      request.slice(1),
      [...request.slice(0, 3), { role: "developer", content: "late" }, request[3]],
    ];
    for (const c of changes) expect(checkSelectionResult(c, { request, incoming }).ok).toBe(false);
  });
});

describe("checkCompressResult on arbitrary JSON", () => {
  it("never throws, and what it accepts is valid and keeps the required user message", () => {
    fc.assert(
      fc.property(candidate, (value) => {
        const check = checkCompressResult(value, { requiredUser: incoming });
        if (!check.ok) return;
        expect(checkConversation(check.messages).filter((p) => FATAL.has(p.code))).toEqual([]);
        // The message itself, or a message quoting its text.
        expect(check.messages.some((m) => (m.role === "user" && m.content === "now") || contentText(m.content).includes("now"))).toBe(true);
        expect(JSON.parse(JSON.stringify(check.messages))).toEqual(check.messages);
      }),
      { numRuns: 500 },
    );
  });
});

describe("hostile values", () => {
  it("refuses circular, BigInt, deeply nested and throwing values with a reason", () => {
    const loop: Record<string, unknown> = { role: "user", content: "x" };
    loop.self = loop;
    let deep: unknown = "x";
    for (let i = 0; i < 10_000; i++) deep = [deep];
    const trap = new Proxy([], { get: () => { throw new Error("trap"); } });
    for (const value of [[loop], [{ role: "user", content: "x", n: 1n }], [{ role: "user", content: "x", deep }], trap]) {
      const check = checkList(value);
      expect(check.ok).toBe(false);
    }
  });

  it("measures depth without recursion", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { next: deep };
    expect(exceedsDepth(deep, 64)).toBe(true);
    expect(exceedsDepth({ a: [1, { b: 2 }] }, 64)).toBe(false);
  });
});

describe("checkCompressResult and the turn's request", () => {
  it("accepts a summary that quotes an oversized active request verbatim, and refuses one that drops it", () => {
    const user: Message = { role: "user", content: "Please refactor\nthe parser and keep the tests green." };
    const quoted: Message[] = [{ role: "user", content: "[CONTEXT COMPACTION]\n## User Messages (verbatim, newest first)\n> Please refactor\n> the parser and keep the tests green." }, { role: "assistant", content: "working" }];
    expect(checkCompressResult(quoted, { requiredUser: user }).ok).toBe(true);
    expect(checkCompressResult([{ role: "user", content: "[summary]" }], { requiredUser: user }).ok).toBe(false);
  });
});
