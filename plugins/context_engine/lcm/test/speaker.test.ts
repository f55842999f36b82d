import { describe, expect, it } from "vitest";
import { favourNamedSpeaker, SPEAKER_FACTOR } from "../src/search/speaker.js";

const row = (rowid: number, score: number) => ({ rowid, score, createdAt: rowid });

describe("favourNamedSpeaker", () => {
  const bodies = new Map([
    [1, "Alice Smith: the garden is done"],
    [2, "Bruno: Alice, your garden looks great"],
    [3, "Alice Smith: tomatoes next"],
    [4, "no label here, garden talk"],
  ]);

  it("scores the named speaker's turns ×SPEAKER_FACTOR when the best turn is hers; one word of a full name names her", () => {
    const out = favourNamedSpeaker([row(1, 3), row(2, 2.9), row(4, 2.8), row(3, 2.5)], bodies, ["smith", "garden"]);
    expect(out.map((r) => r.rowid)).toEqual([1, 3, 2, 4]);
    expect(out[0]!.score).toBeCloseTo(3 * SPEAKER_FACTOR);
    expect(out.find((r) => r.rowid === 2)!.score).toBe(2.9);
  });

  it("returns the rows unchanged when the best turn is someone else's, or no label names a query word", () => {
    const rows = [row(2, 3), row(1, 2.9), row(3, 2.8)];
    expect(favourNamedSpeaker(rows, bodies, ["alice", "garden"])).toBe(rows);
    const unnamed = [row(1, 3), row(2, 2.9)];
    expect(favourNamedSpeaker(unnamed, bodies, ["garden", "tomatoes"])).toBe(unnamed);
  });

  it("a quoted phrase's words count as named", () => {
    const out = favourNamedSpeaker([row(1, 3), row(2, 2.9), row(3, 2.5)], bodies, ["alice smith", "garden"]);
    expect(out.map((r) => r.rowid)).toEqual([1, 3, 2]);
  });
});
