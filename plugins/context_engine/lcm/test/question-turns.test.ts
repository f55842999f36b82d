import { describe, expect, it } from "vitest";
import { ASKED_ONLY_FACTOR, ASKING_TURN_MAX_CHARS, asksOnly, discountAskedOnly, queryWords } from "../src/search/question-turns.js";

const row = (rowid: number, score: number) => ({ rowid, score, createdAt: rowid });

describe("asksOnly", () => {
  const q = queryWords(["dance", "style"]);

  it("is true when every sentence holding a query word asks", () => {
    expect(asksOnly("Gina: Wow Jon! Got any fave dance styles?", q)).toBe(true);
    expect(asksOnly("What style do you like? And which dance?", q)).toBe(true);
  });

  it("is false when a statement holds a query word, wherever it is", () => {
    expect(asksOnly("Gina: Contemporary dance is so expressive.", q)).toBe(false);
    expect(asksOnly("Dance is my go-to. Got any fave styles?", q)).toBe(false);
    expect(asksOnly("Got any fave styles? Contemporary dance is mine", q)).toBe(false);
  });

  it("is false when no sentence holds a query word (the speaker label is no sentence)", () => {
    expect(asksOnly("Dance: how are you?", queryWords(["dance"]))).toBe(false);
    expect(asksOnly("How are you?", q)).toBe(false);
    expect(asksOnly("", q)).toBe(false);
  });

  it("splits sentences only at whitespace after . ! ? (paths and numbers stay whole)", () => {
    const path = queryWords(["src/a.ts"]);
    expect(asksOnly("Does src/a.ts export it?", path)).toBe(true);
    expect(asksOnly("I changed src/a.ts. Does it build?", path)).toBe(false);
    expect(asksOnly('Did you say "version 3.5?" Yes.', queryWords(["version"]))).toBe(true);
  });

  it("reads plural and verb endings and multi-word terms", () => {
    expect(asksOnly("Are you still painting?", queryWords(["paints"]))).toBe(true);
    expect(asksOnly("Was the road trip long?", queryWords(["road trip"]))).toBe(true);
    expect(asksOnly("The road was long, the trip short?", queryWords(["road trip"]))).toBe(false);
  });
});

describe("discountAskedOnly", () => {
  const bodies = new Map([
    [1, "Gina: Got any fave dance styles?"],
    [2, "Jon: Contemporary dance is my top pick. What's your fave?"],
    [3, "Gina: Dance is my go-to for stress relief."],
  ]);

  it("scores messages whose query words are only asked about ×ASKED_ONLY_FACTOR and re-sorts", () => {
    const out = discountAskedOnly([row(1, 4), row(2, 3), row(3, 2.5)], bodies, ["dance", "style"]);
    expect(out.map((r) => r.rowid)).toEqual([2, 3, 1]);
    expect(out.find((r) => r.rowid === 1)!.score).toBeCloseTo(4 * ASKED_ONLY_FACTOR);
    expect(out.find((r) => r.rowid === 2)!.score).toBe(3);
  });

  it("returns the rows themselves when no message only asks", () => {
    const rows = [row(2, 3), row(3, 2.5)];
    expect(discountAskedOnly(rows, bodies, ["dance"])).toBe(rows);
  });
});

describe("asksOnly on a long message", () => {
  it("leaves a message over ASKING_TURN_MAX_CHARS alone (a document or a tool's output is no turn that asks)", () => {
    const q = queryWords(["dance"]);
    const asking = "Which dance do you like?";
    expect(asksOnly(asking, q)).toBe(true);
    expect(asksOnly(`${"la ".repeat(ASKING_TURN_MAX_CHARS / 3)}${asking}`, q)).toBe(false);
  });
});
