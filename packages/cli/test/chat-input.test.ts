import { describe, expect, it } from "vitest";
import { LineAssembler, PasteBook, PasteFilter } from "../src/chat/input.js";

async function filtered(chunks: string[]): Promise<{ text: string; book: PasteBook }> {
  const filter = new PasteFilter();
  let text = "";
  filter.on("data", (d: Buffer | string) => (text += d.toString()));
  for (const c of chunks) filter.write(c);
  await new Promise<void>((resolve) => filter.end(resolve));
  return { text, book: filter.book };
}

describe("bracketed paste filter", () => {
  it("turns a multi-line paste into one placeholder that expands back with indentation and CRLF normalised", async () => {
    const { text, book } = await filtered(["ab\u001b[200~x:\r\n    y\r\n\u001b[201~cd"]);
    expect(text).toBe("ab[pasted text #1, 2 lines]cd");
    expect(book.expand(text)).toBe("abx:\n    ycd");
  });

  it("finds markers cut anywhere between reads", async () => {
    const input = "go \u001b[200~line 1\n  line 2\u001b[201~!";
    for (let cut = 1; cut < input.length; cut++) {
      const { text, book } = await filtered([input.slice(0, cut), input.slice(cut)]);
      expect(book.expand(text)).toBe("go line 1\n  line 2!");
    }
  });

  it("passes a one-line paste and ordinary escapes (arrow keys) through", async () => {
    const { text } = await filtered(["\u001b[200~just one line\u001b[201~\u001b[A"]);
    expect(text).toBe("just one line\u001b[A");
  });
});

describe("line assembler", () => {
  it("joins backslash continuations, keeps /multi blocks verbatim, trims single lines", () => {
    const a = new LineAssembler(new PasteBook());
    expect(a.feed("  hello  ")).toEqual({ kind: "message", text: "hello" });
    expect(a.feed("one \\")).toEqual({ kind: "more" });
    expect(a.continuing).toBe(true);
    expect(a.feed("  two")).toEqual({ kind: "message", text: "one \n  two" });
    expect(a.feed("/multi")).toEqual({ kind: "multi_started" });
    expect(a.feed("  a")).toEqual({ kind: "more" });
    expect(a.feed("")).toEqual({ kind: "more" });
    expect(a.feed("    b")).toEqual({ kind: "more" });
    expect(a.feed("/end")).toEqual({ kind: "message", text: "  a\n\n    b" });
    expect(a.feed("escaped \\\\")).toEqual({ kind: "message", text: "escaped \\\\" });
    expect(a.feed("   ")).toEqual({ kind: "empty" });
    a.feed("/multi");
    a.feed("half");
    expect(a.cancel()).toBe(true);
    expect(a.feed("fresh")).toEqual({ kind: "message", text: "fresh" });
  });
});
