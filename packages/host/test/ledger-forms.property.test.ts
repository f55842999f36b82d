import type { Logger, Message } from "@context-engine/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { alignLists, canonicalMessage, messageDigest } from "../src/ledger/digest.js";
import { SessionLedger } from "../src/ledger/ledger.js";
import { listForms } from "../src/ledger/list-forms.js";
import { prefixImpact } from "../src/ledger/prefix-impact.js";
import { sanitizeRequestMessages } from "../src/request/sanitize.js";
import { messageHasLoneSurrogate } from "../src/request/surrogates.js";

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;

class Note {
  constructor(readonly text: string) {}
}

// Small alphabets make equal messages, multi-byte text and (lone) surrogates likely; "\\ud800" is the escape written out.
const unit = fc.constantFrom("a", "é", "\u4e2d", "😀", "\uD800", "\uDC00", "\"", "\\", "\\ud800", "\u2028");
const text = fc.array(unit, { maxLength: 8 }).map((u) => u.join(""));
const leaf = fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined));
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, leaf, fc.array(tie("value"), { maxLength: 3 }), fc.dictionary(fc.constantFrom("b", "a", "10", "2", "cache_control", "toJSON", "z"), tie("value"), { maxKeys: 3 })),
})).value;
const marker = fc.option(fc.constant({ type: "ephemeral" }), { nil: undefined });
const call = fc.record({ id: fc.constantFrom("t1", "t2"), type: fc.constant("function"), function: fc.record({ name: text, arguments: text }) });

const message: fc.Arbitrary<Message> = fc.oneof(
  fc.record({ role: fc.constantFrom("user", "system"), content: text }),
  fc.record({ content: text, role: fc.constant("user") }),
  fc.record({ role: fc.constant("user"), content: fc.array(fc.record({ type: fc.constant("text"), text, cache_control: marker }, { requiredKeys: ["type", "text"] }), { maxLength: 2 }) }),
  fc.record({ role: fc.constant("assistant"), content: fc.option(text, { nil: null }), tool_calls: fc.array(call, { minLength: 1, maxLength: 2 }) }),
  fc.record({ tool_call_id: fc.constantFrom("t1", "t2"), role: fc.constant("tool"), content: text }),
  fc.record({ role: fc.constant("assistant"), content: text, extra: json }),
  // An own "__proto__" key as JSON.parse makes it, and values that are not plain data.
  text.map((t) => JSON.parse(`{"role":"user","__proto__":{"x":1},"content":${JSON.stringify(t)}}`)),
  fc.tuple(text, fc.constantFrom<unknown>(new Date(0), new Note("n"), new Map([["k", 1]]), Object.create(null))).map(([t, v]) => ({ role: "user", content: t, meta: v })),
) as fc.Arbitrary<Message>;

const shape = fc.option(fc.record({ model: fc.constant("m"), tools: fc.constantFrom([], [{ type: "function" }]), promptCache: fc.boolean() }), { nil: undefined });

/** A compaction: kept head and tail (the same objects or JSON copies), the middle replaced. */
const change = fc
  .tuple(fc.array(message, { minLength: 1, maxLength: 14 }), fc.nat(14), fc.nat(14), fc.array(message, { maxLength: 3 }), fc.boolean())
  .map(([before, head, tail, inserted, sameObjects]) => {
    const h = Math.min(head, before.length);
    const t = Math.min(tail, before.length - h);
    const keep = (list: Message[]) => (sameObjects ? list : list.map((m) => JSON.parse(JSON.stringify(m)) as Message));
    return { before, after: [...keep(before.slice(0, h)), ...inserted, ...keep(before.slice(before.length - t))] };
  });

describe("listForms", () => {
  it("gives each message's digest, its form's bytes, and flags only what the forms can vouch for", () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 10 }), (messages) => {
        const forms = listForms(messages);
        messages.forEach((m, i) => {
          const form = canonicalMessage(m);
          expect(forms.keys[i]).toBe(form);
          expect(forms.digests[i]).toBe(messageDigest(m));
          expect(forms.bytes[i]).toBe(Buffer.byteLength(form ?? "null"));
          if (forms.sameBytes[i] === 1) expect(Buffer.byteLength(JSON.stringify(m))).toBe(forms.bytes[i]);
          if (forms.wellFormed[i] === 1) expect(messageHasLoneSurrogate(m as unknown as Record<string, unknown>)).toBe(false);
        });
      }),
      { numRuns: 1500 },
    );
  });

  it("keeps only the forms asked for, the others standing as their index", () => {
    const messages: Message[] = [{ role: "user", content: "a" }, { role: "user", content: "b" }, { content: "a", role: "user" }];
    const wanted = canonicalMessage({ role: "user", content: "a" });
    expect(listForms(messages, (form) => form === wanted).keys).toEqual([wanted, 1, wanted]);
  });

  it("vouches for plain messages without surrogates, not for one with a lone surrogate or a written-out escape", () => {
    const forms = listForms([
      { role: "user", content: "plain é 😀" },
      { role: "user", content: "cut \uD83D" },
      { role: "user", content: "the text \\ud83d" },
    ]);
    expect([...forms.wellFormed]).toEqual([1, 0, 0]);
  });
});

describe("a compaction's ledger entry", () => {
  it("is what the canonical forms of both whole lists give (alignment, digests, prefix figure)", () => {
    fc.assert(
      fc.property(change, shape, ({ before, after }, request) => {
        const entry = new SessionLedger(null, silent).recordCompaction({ sessionId: "s", engine: "e", trigger: "manual", focusTopic: null, durationMs: 1, tokensBefore: 9, tokensAfter: 3, before, after, request });
        const aligned = alignLists(before, after);
        expect(entry.removed.map((r) => r.index)).toEqual(aligned.removed);
        expect(entry.inserted.map((r) => r.index)).toEqual(aligned.inserted);
        expect(entry.removed.map((r) => canonicalMessage(r.message))).toEqual(aligned.removed.map((i) => canonicalMessage(before[i]!)));
        expect(entry.before).toEqual(before.map(messageDigest));
        expect(entry.after).toEqual(after.map(messageDigest));
        expect(entry.cache).toEqual(prefixImpact(before, after, request));
      }),
      { numRuns: 1000 },
    );
  });
});

describe("sanitizeRequestMessages with messages known to be well formed", () => {
  it("repairs exactly as without the hint when the hint comes from the forms", () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 12 }), (messages) => {
        const forms = listForms(messages);
        const plain = sanitizeRequestMessages(messages.slice());
        const hinted = sanitizeRequestMessages(messages.slice(), { wellFormed: (at) => forms.wellFormed[at] === 1 });
        expect(hinted.repairs).toEqual(plain.repairs);
        expect(JSON.stringify(hinted.messages)).toBe(JSON.stringify(plain.messages));
      }),
      { numRuns: 1000 },
    );
  });
});
