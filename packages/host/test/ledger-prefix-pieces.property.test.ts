import type { Message } from "@context-engine/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalMessage } from "../src/ledger/digest.js";
import { listForms } from "../src/ledger/list-forms.js";
import { prefixImpact, requestBody, type RequestShape } from "../src/ledger/prefix-impact.js";

/** The figures as the ledger first computed them: both bodies serialised whole, encoded, compared byte by byte. */
function wholeBodies(before: readonly Message[], after: readonly Message[], shape?: RequestShape) {
  const serialise = (list: readonly Message[]) => (shape ? requestBody(list, shape) : JSON.stringify(list.map((m) => JSON.parse(canonicalMessage(m)))));
  const x = Buffer.from(serialise(before), "utf8");
  const y = Buffer.from(serialise(after), "utf8");
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  return { bytesBefore: x.length, bytesAfter: y.length, identicalPrefixBytes: i };
}

// Small alphabets make shared prefixes, multi-byte differences and (lone) surrogates likely.
const unit = fc.constantFrom("a", "b", "é", "è", "\u4e2d", "😀", "😁", "\uD800", "\uDC00", "\"", "\\");
const text = fc.array(unit, { maxLength: 12 }).map((u) => u.join(""));
const marker = fc.option(fc.constant({ type: "ephemeral" }), { nil: undefined });

const message: fc.Arbitrary<Message> = fc.oneof(
  fc.record({ role: fc.constantFrom("user", "system"), content: text }),
  // Content first or role first: key order changes the JSON, not its length.
  fc.record({ content: text, role: fc.constant("user") }),
  fc.record({ role: fc.constant("user"), content: fc.array(fc.record({ type: fc.constant("text"), text, cache_control: marker }, { requiredKeys: ["type", "text"] }), { maxLength: 2 }) }),
  fc.record({ role: fc.constant("assistant"), content: fc.option(text, { nil: null }), tool_calls: fc.constant([{ id: "t1", type: "function", function: { name: "read", arguments: "{}" } }]) }),
  fc.record({ role: fc.constant("tool"), tool_call_id: fc.constantFrom("t1", "t2"), content: text }),
  fc.record({ role: fc.constant("assistant"), content: text, extra: fc.constant(undefined) }),
) as fc.Arbitrary<Message>;

const shape = fc.option(fc.record({ model: fc.constantFrom("gpt", "claude-x"), tools: fc.constantFrom([], [{ type: "function", function: { name: "read" } }]), promptCache: fc.boolean() }), { nil: undefined });

/** A compaction of `before`: a kept head, a middle replaced by new messages, a kept tail; kept ones are JSON copies or the same objects. */
const change = fc
  .tuple(fc.array(message, { minLength: 1, maxLength: 12 }), fc.nat(12), fc.nat(12), fc.array(message, { maxLength: 3 }), fc.boolean())
  .map(([before, head, tail, inserted, sameObjects]) => {
    const h = Math.min(head, before.length);
    const t = Math.min(tail, before.length - h);
    const keep = (list: Message[]) => (sameObjects ? list : (JSON.parse(JSON.stringify(list)) as Message[]));
    return { before, after: [...keep(before.slice(0, h)), ...inserted, ...keep(before.slice(before.length - t))] };
  });

describe("prefixImpact, counted piece by piece", () => {
  it("gives the figures of the whole serialised bodies, with and without the canonical forms at hand", () => {
    fc.assert(
      fc.property(change, shape, fc.boolean(), ({ before, after }, s, swap) => {
        const [a, b] = swap ? [after, before] : [before, after]; // a restore: the long list comes after
        const expected = wholeBodies(a, b, s);
        expect(prefixImpact(a, b, s)).toEqual(expected);
        expect(prefixImpact(a, b, s, { before: listForms(a), after: listForms(b) })).toEqual(expected);
      }),
      { numRuns: 1500 },
    );
  });

  it("finds a difference far past the first piece (a long shared message)", () => {
    const long = "x".repeat(20_000);
    const before: Message[] = [{ role: "user", content: `${long}a` }, { role: "assistant", content: "ok" }];
    const after: Message[] = [{ role: "user", content: `${long}b` }];
    for (const s of [undefined, { model: "m", tools: [], promptCache: false }]) expect(prefixImpact(before, after, s)).toEqual(wholeBodies(before, after, s));
  });

  it("marks the forms whose JSON has another length (a dropped cache_control, a Date)", () => {
    const forms = listForms([
      { role: "user", content: "plain" },
      { role: "user", content: [{ type: "text", text: "t", cache_control: { type: "ephemeral" } }] },
      { role: "user", content: "d", when: new Date(0) } as unknown as Message,
    ]);
    expect([...forms.sameBytes]).toEqual([1, 0, 0]);
  });
});
