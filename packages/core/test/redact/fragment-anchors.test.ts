import { describe, expect, it } from "vitest";
import { buildAnchoredScreen } from "../../src/redact/anchored-screen.js";
import { classMembers, firstSet, leadingPositions, NON_ASCII, runStart, startVariants, wordAfter } from "../../src/redact/fragment-anchors.js";
import { BUILTIN_SECRET_RULES } from "../../src/redact/rules.js";

describe("reading where a screen fragment starts", () => {
  it("reads control escapes in a class, and refuses what it cannot read", () => {
    expect(classMembers(" \\t")).toEqual([" ", "\t"]);
    expect(classMembers("a-c\\.")).toEqual(["a", "b", "c", "."]);
    expect(classMembers("\\s")).toBeNull();
    expect(classMembers("^ab")).toBeNull();
    expect(classMembers("\\t-z")).toBeNull();
  });

  it("splits a leading group of words and an optional item among the first three", () => {
    expect(startVariants("(?:pass|pwd)[:=]")).toEqual(["pass[:=]", "pwd[:=]"]);
    expect(startVariants("xhs?[ \\t]")).toEqual(["xhs[ \\t]", "xh[ \\t]"]);
    expect(startVariants("abcd?e")).toEqual(["abcd?e"]);
    expect(startVariants("(?:a\\w|b)c")).toEqual(["(?:a\\w|b)c"]);
    // A group that may be absent is not split: the fragment may start after it.
    expect(startVariants("(?:ab|cd)?xyz")).toEqual(["(?:ab|cd)?xyz"]);
  });

  it("reads the positions after the start, through optional items and groups", () => {
    expect(leadingPositions("pat[0-9]{2}\\.").map((s) => s.join(""))).toEqual(["p", "a", "t", "0123456789", "0123456789"]);
    expect(firstSet("(?:[_-]\\w*)?\\\\?[\"']?[ \\t]*[:=]x", 0)?.sort()).toEqual(["\t", " ", '"', "'", "-", ":", "=", "\\", "_"].sort());
    expect(firstSet("\\s+x", 0)).toContain(NON_ASCII);
    // The rest may match nothing, or holds what is not read: any character may follow.
    expect(firstSet("a?b*", 0)).toBeNull();
    expect(firstSet("(?<=x)y", 0)).toBeNull();
    expect(firstSet("[^a]", 0)).toBeNull();
    expect(leadingPositions("token(?:[_-]\\w*)?[:=]").length).toBe(6);
  });

  it("reads a run after a first character, and a word after a class", () => {
    expect(runStart(":[A-Za-z0-9_-]{30}")).toMatchObject({ first: [":"], min: 30 });
    expect(runStart("[MNO][A-Za-z0-9_-]{20,30}\\.")?.first.sort()).toEqual(["M", "N", "O", "m", "n", "o"]);
    expect(runStart(":[a-z]{3}")).toBeNull();
    expect(wordAfter("-[a-z-]{0,30}(?:pass|token)[ \\t]")).toMatchObject({ first: ["-"], max: 30, words: ["pass", "token"] });
    expect(wordAfter("-[a-z-]{0,30}(?:pa|token)")).toBeNull();
    expect(wordAfter("-[a-z-]*(?:pass)")).toBeNull();
    expect(wordAfter("-[a-z-]{0,30}(?:pass|token)?=")).toBeNull();
  });

  it("scans for every built-in fragment: none is left to a regex over the whole text", () => {
    expect(buildAnchoredScreen(BUILTIN_SECRET_RULES.map((r) => r.screen))!.unscanned).toEqual([]);
  });

  it("leaves a fragment of another shape to the regex, and still answers as the screen does", () => {
    const screens = [["(?:ab|c\\w)z"], ["abc[0-9]"]];
    const a = buildAnchoredScreen(screens)!;
    expect(a.unscanned).toEqual(["(?:ab|c\\w)z"]);
    for (const t of ["xx c_z", "abz", "abc1", "abc", "ABC9", "cz"]) expect(a.test(t), t).toBe(/(?:ab|c\w)z|abc[0-9]/i.test(t));
  });
});
