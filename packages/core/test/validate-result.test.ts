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
  it("never throws, and what it accepts is a valid conversation that keeps the host's system prefix", () => {
    fc.assert(
      fc.property(candidate, (value) => {
        const check = checkSelectionResult(value, { request, incoming });
        if (!check.ok) {
          expect(typeof check.reason).toBe("string");
          return;
        }
        const problems = checkConversation(check.messages, { allowTrailingInFlightCall: false });
        expect(problems.filter((p) => FATAL.has(p.code) || p.code === "missing_tool_result")).toEqual([]);
        expect(check.messages[0]).toEqual(request[0]);
        expect(check.messages.filter((m) => m.role === "system")).toEqual([request[0]]);
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

  // From the original host's suite: a routed request may rephrase or drop the turn's message.
  it("accepts a routed replacement without the turn's user message", () => {
    const routed = [{ role: "system", content: "sys" }, { role: "user", content: "routed-context" }];
    const check = checkSelectionResult(routed, { request, incoming });
    expect(check).toEqual({ ok: true, messages: routed });
  });

  it("passes role-unusual but valid lists on to the sanitisers", () => {
    const lists = [
      [request[0], { role: "user", content: "a" }, { role: "user", content: "b" }],
      [request[0], { role: "developer", content: "route: billing" }, request[3]],
      [request[0], { role: "assistant", content: null, function_call: { name: "f", arguments: "{}" } }, { role: "function", name: "f", content: "{}" }, request[3]],
      [request[0], { role: "assistant", content: "first" }, request[3]],
    ];
    for (const list of lists) expect(checkSelectionResult(list, { request, incoming }).ok, JSON.stringify(list)).toBe(true);
  });

  it("refuses every change to the system prefix and a stray system message after it", () => {
    const changes: Array<[unknown[], RegExp]> = [
      [[request[0], { role: "system", content: "more" }, ...request.slice(1)], /injects a system message/],
      [[{ role: "system", content: "other" }, ...request.slice(1)], /changes the system prefix/],
      [request.slice(1), /changes the system prefix/],
      [[...request.slice(0, 3), { role: "system", content: "late" }, request[3]], /adds a system message after the system prefix/],
    ];
    for (const [c, reason] of changes) {
      const check = checkSelectionResult(c, { request, incoming });
      expect(check.ok).toBe(false);
      if (!check.ok) expect(check.reason).toMatch(reason);
    }
  });

  it("refuses broken tool pairing, non-lists, empty lists and non-objects", () => {
    const call = { id: "c1", type: "function", function: { name: "read", arguments: "{}" } };
    const cases: Array<[unknown, RegExp]> = [
      [[request[0], { role: "tool", tool_call_id: "c1", content: "x" }, request[3]], /no matching tool call/],
      [[request[0], { role: "assistant", content: null, tool_calls: [call] }, request[3]], /has no tool result/],
      [[request[0], request[3], { role: "assistant", content: null, tool_calls: [call] }], /has no tool result/],
      [{ role: "user", content: "x" }, /expected a list/],
      [[], /empty/],
      [[request[0], "oops"], /expected an object/],
    ];
    for (const [value, reason] of cases) {
      const check = checkSelectionResult(value, { request, incoming });
      expect(check.ok).toBe(false);
      if (!check.ok) expect(check.reason).toMatch(reason);
    }
  });

  it("keeps a later system message the request itself held, and lets the selection drop it", () => {
    const withSummary: Message[] = [request[0]!, { role: "system", content: "summary" }, ...request.slice(1)];
    withSummary.splice(1, 0, { role: "user", content: "hi" });
    expect(checkSelectionResult(withSummary, { request: withSummary }).ok).toBe(true);
    expect(checkSelectionResult([request[0], request[3]], { request: withSummary }).ok).toBe(true);
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
