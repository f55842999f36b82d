import { describe, expect, it } from "vitest";
import { extractFacts, commandOf } from "../src/facts.js";
import { holdsTurn, indexContext, newestWithin, recallAt } from "../src/metrics.js";
import { contentWords } from "../src/text.js";

describe("contentWords", () => {
  it("drops question and stop words, possessive suffixes and duplicates, keeps order", () => {
    expect(contentWords("When did Caroline go to the LGBTQ support group? Caroline's group!")).toEqual(["caroline", "go", "lgbtq", "support", "group"]);
    expect(contentWords("What is it?")).toEqual([]);
    expect(contentWords("How many 5k runs in 2023")).toEqual(["5k", "runs", "2023"]);
  });
});

describe("recallAt", () => {
  it("counts evidence found in the first k hits, a hit may stand for several ids", () => {
    const ranked = [["a"], [], ["b", "c"], ["d"]];
    expect(recallAt(ranked, ["a", "c", "x"], 3)).toBeCloseTo(2 / 3);
    expect(recallAt(ranked, ["d"], 3)).toBe(0);
    expect(recallAt(ranked, ["d"], 4)).toBe(1);
    expect(recallAt(ranked, [], 10)).toBe(0);
  });
});

describe("holdsTurn", () => {
  const turn = "Melanie: I ran a charity race for mental health last Saturday in Boston.";
  it("holds a turn kept verbatim", () => {
    expect(holdsTurn(turn, indexContext(["x", `prefix ${turn} suffix`]))).toBe(true);
  });
  it("holds a turn when one message has 60% of its content words", () => {
    expect(holdsTurn(turn, indexContext(["#4 Melanie ran charity race mental health Saturday"]))).toBe(true);
  });
  it("does not hold it when the words are spread over messages", () => {
    expect(holdsTurn(turn, indexContext(["Melanie ran charity", "race mental health", "Saturday Boston"]))).toBe(false);
  });
});

describe("newestWithin", () => {
  it("keeps the newest items that fit, in order", () => {
    expect(newestWithin([5, 1, 2, 3], (x) => x, 5)).toEqual([2, 3]);
    expect(newestWithin([5, 1, 2, 3], (x) => x, 0)).toEqual([]);
  });
});

describe("extractFacts", () => {
  it("finds paths, first command lines, error lines and numbers of a region", () => {
    const facts = extractFacts([
      { role: "assistant", content: "Checking sphinx/ext/autodoc/__init__.py", tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: JSON.stringify({ command: "cd /testbed && python -m pytest tests/test_x.py -k slow\necho done" }) } }] },
      { role: "tool", tool_call_id: "c1", content: "collected 1234 items\nE   AssertionError: expected 3.14\n1 failed in 0.52 seconds" },
    ]);
    const of = (kind: string) => facts.filter((f) => f.kind === kind).map((f) => f.text);
    expect(of("path")).toEqual(expect.arrayContaining(["sphinx/ext/autodoc/__init__.py", "tests/test_x.py"]));
    expect(of("command")).toEqual(["cd /testbed && python -m pytest tests/test_x.py -k slow"]);
    expect(of("error")).toEqual(["E   AssertionError: expected 3.14"]);
    expect(of("number")).toEqual(expect.arrayContaining(["1234", "3.14", "0.52"]));
  });
  it("names a call without a command argument by its tool and string arguments", () => {
    expect(commandOf("str_replace_editor", JSON.stringify({ command: "view", path: "/repo/a.py" }))).toBe("str_replace_editor view /repo/a.py");
    expect(commandOf("get_user", JSON.stringify({ user_id: "mia_li_3668" }))).toBe("get_user mia_li_3668");
  });
});
