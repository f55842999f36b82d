import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { commonUtf8PrefixBytes } from "../src/ledger/prefix-impact.js";

/** The figure as the ledger first computed it: both strings encoded whole, compared byte by byte. */
function byEncoding(a: string, b: string): number {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  return i;
}

// Small alphabets make long shared prefixes, differences inside multi-byte characters and surrogate pairs likely.
const unit = fc.constantFrom("a", "b", "é", "è", "\u4e2d", "\u4e8c", "😀", "😁", "\uD800", "\uDC00", "\uDBFF");
const text = fc.array(unit, { maxLength: 40 }).map((u) => u.join(""));

describe("commonUtf8PrefixBytes", () => {
  it("equals the byte-by-byte comparison of the two UTF-8 encodings", () => {
    fc.assert(
      fc.property(text, text, text, (shared, a, b) => {
        expect(commonUtf8PrefixBytes(shared + a, shared + b)).toBe(byEncoding(shared + a, shared + b));
      }),
      { numRuns: 2000 },
    );
  });

  it("finds a difference past many whole chunks", () => {
    const head = "x".repeat(50_000) + "é".repeat(3000);
    expect(commonUtf8PrefixBytes(`${head}A tail`, `${head}B tail`)).toBe(Buffer.byteLength(head));
    expect(commonUtf8PrefixBytes(head, head)).toBe(Buffer.byteLength(head));
    expect(commonUtf8PrefixBytes(head, `${head}more`)).toBe(Buffer.byteLength(head));
  });
});
