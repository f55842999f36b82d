import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { wellFormedString, withWellFormedText } from "../src/store/codec.js";

/** The rule as it was written before (a regex over code units), kept here as the reference. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const reference = (s: string) => s.replace(LONE_SURROGATE, "\uFFFD");

/** Strings of any UTF-16 code units, surrogates (paired, lone, reversed) frequent among them. */
const units = fc
  .array(fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.integer({ min: 0xd7fe, max: 0xe001 }), fc.constantFrom(0x61, 0x4e2d)), { maxLength: 40 })
  .map((codes) => String.fromCharCode(...codes));

describe("unpaired surrogates become U+FFFD", () => {
  it("as the regex rule did, for any string, and the same string when there is none", () => {
    fc.assert(
      fc.property(units, (s) => {
        const out = wellFormedString(s);
        expect(out).toBe(reference(s));
        if (out === s) expect(wellFormedString(s)).toBe(s);
      }),
      { numRuns: 3000 },
    );
    expect(wellFormedString("a\uD800b\uDC00\uD83D\uDE00")).toBe("a\uFFFDb\uFFFD\uD83D\uDE00");
  });

  it("in every string of a message, keys too, keeping the value itself when nothing changes", () => {
    const clean = { role: "user", content: [{ type: "text", text: "ok 😀" }], extra: { k: ["v"] } };
    expect(withWellFormedText(clean)).toBe(clean);
    const dirty = { role: "user", content: "a\uD800", ["k\uDC00"]: ["x", "\uDBFF"] };
    expect(withWellFormedText(dirty)).toEqual({ role: "user", content: "a\uFFFD", ["k\uFFFD"]: ["x", "\uFFFD"] });
  });
});
