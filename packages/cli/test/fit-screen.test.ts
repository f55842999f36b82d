import { describe, expect, it } from "vitest";
import { elideMiddle, fitLines, renderKeyValues } from "../src/format/fit-screen.js";
import { splitSummaries } from "../src/format/summary-text.js";

describe("laying text out for a terminal width", () => {
  it("a path too long for its place keeps its start and its file name", () => {
    const path = "/home/someone/projects/context-engine/.context-engine/chats/3f1c2d9e-aaaa-bbbb-cccc-0123456789ab.jsonl";
    for (const width of [30, 44, 60, 80]) {
      const shown = elideMiddle(path, width);
      expect(shown.length, shown).toBeLessThanOrEqual(width);
      expect(shown.startsWith("/home/")).toBe(true);
      expect(shown).toContain("…");
      expect(shown.endsWith(".jsonl")).toBe(true);
    }
    expect(elideMiddle(path, 200)).toBe(path);
    expect(elideMiddle("/a/b/chats/x.jsonl", 16)).toMatch(/^\/a\/.*….*x\.jsonl$/);
  });

  it("every line wraps within the width, keeping its indent and a quoted block's marker, and no word is lost", () => {
    const text = ["Short line.", `  - user: ${"word ".repeat(30).trim()}`, `  | ${"quoted ".repeat(20).trim()}`, "x".repeat(130)].join("\n");
    for (const width of [40, 60, 80]) {
      const out = fitLines(text, width).split("\n");
      for (const line of out) expect(line.length, line).toBeLessThanOrEqual(width);
      expect(out.filter((l) => l.startsWith("  | ")).length).toBeGreaterThan(1);
      expect(out.join(" ").match(/word/g)).toHaveLength(30);
      expect(out.join("").match(/x/g)).toHaveLength(130);
    }
  });

  it("a label/value list wraps long labels and values inside their columns", () => {
    const out = renderKeyValues(
      [
        ["Window from", "/tmp/somewhere/deep/inside/a/tree/config.yaml: model.context_window"],
        ["A label far longer than a third of the width", "value"],
        ["  Indented", "a value long enough to need a second line at this width, surely"],
      ],
      48,
    ).split("\n");
    for (const line of out) expect(line.length, line).toBeLessThanOrEqual(48);
    expect(out.join("\n")).toContain("model.context_window");
    expect(out.some((l) => l.startsWith("  Indented"))).toBe(true);
  });

  it("a lossless summary message splits into its summaries and the note to the model", () => {
    const text = `<lcm_context>\nNote line one.\nNote line two.\n<summary id="sum_1" depth="0" messages="#0-#3" count="4" time="x">\nThe body &amp; more\n</summary>\n</lcm_context>`;
    const parts = splitSummaries(text)!;
    expect(parts.summaries).toEqual([{ attrs: { id: "sum_1", depth: "0", messages: "#0-#3", count: "4", time: "x" }, body: "The body &amp; more" }]);
    expect(parts.note).toBe("Note line one.\nNote line two.");
    // Cut short inside a summary: the summary runs to the end.
    expect(splitSummaries(`${text.slice(0, text.indexOf("more"))}mo…`)!.summaries[0]!.body).toBe("The body &amp; mo…");
    expect(splitSummaries("no summaries here")).toBeNull();
  });
});
