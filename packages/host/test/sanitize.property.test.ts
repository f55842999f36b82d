import fc from "fast-check";
import { checkConversation, checkList } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { describe, expect, it } from "vitest";
import { sanitizeRequestMessages } from "../src/request/sanitize.js";

const id = fc.constantFrom("a", "b", "c", "d");
const text = fc.oneof(fc.string(), fc.constant(""), fc.constant("\uD800 lone"), fc.constant("ok"));
const message = fc.oneof(
  fc.record({ role: fc.constantFrom("system", "user", "developer"), content: text }),
  fc.record({ role: fc.constant("assistant"), content: fc.option(text) }),
  fc.record({
    role: fc.constant("assistant"),
    content: fc.option(text),
    tool_calls: fc.uniqueArray(fc.record({ id, type: fc.constant("function"), function: fc.record({ name: fc.constant("t"), arguments: fc.constant("{}") }) }), { selector: (c) => c.id, maxLength: 3 }),
  }),
  fc.record({ role: fc.constant("tool"), tool_call_id: id, content: text }),
  fc.jsonValue(),
);

describe("request sanitisers on arbitrary input", () => {
  it("never throw, and turn any list the validators accept into one with no pairing problems and no lone surrogates", () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 12 }), (raw) => {
        const accepted = checkList(raw);
        if (!accepted.ok) return;
        const before = JSON.stringify(accepted.messages);
        const out = sanitizeRequestMessages(accepted.messages).messages as Message[];
        // The input list is never edited in place.
        expect(JSON.stringify(accepted.messages)).toBe(before);
        expect(checkConversation(out, { allowTrailingInFlightCall: false })).toEqual([]);
        expect(strings(out).some((s) => /\p{Cs}/u.test(s))).toBe(false);
      }),
      { numRuns: 400 },
    );
  });
});

function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (value === null || typeof value !== "object") return [];
  return Object.values(value as Record<string, unknown>).flatMap(strings);
}
