import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseConfigText } from "../src/index.js";
import { flowNestingBeyond, MAX_YAML_DEPTH } from "../src/config/yaml-source.js";

/** Deeply nested flow collections are refused by a linear scan before the parser sees them. */

describe("flow nesting in config.yaml", () => {
  it("a 1 MiB file of nested brackets or braces is refused with the nesting message", () => {
    const half = (1024 * 1024) / 2 - 64;
    for (const [open, close] of [["[", "]"], ["{", "}"], ["[{", "}]"]] as const) {
      const text = `context:\n  engine: x # it's a test\nnote: don't\nmodel: ${open.repeat(half / open.length)}${close.repeat(half / close.length)}\n`;
      const parsed = parseConfigText(text, "config.yaml");
      expect(parsed.config).toBeNull();
      expect(parsed.problems[0]!.message).toMatch(/nested too deeply/);
      expect(parsed.problems[0]!.line).toBe(4);
    }
  });

  it("generated nesting: refused past the limit, read below it; brackets in quotes and comments do not count", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3 * MAX_YAML_DEPTH }), fc.constantFrom("[", "{a: "), (depth, open) => {
        const close = open === "[" ? "]" : "}";
        const text = `x: ${open.repeat(depth)}1${close.repeat(depth)}\n`;
        expect(flowNestingBeyond(text, MAX_YAML_DEPTH) !== null).toBe(depth > MAX_YAML_DEPTH);
        const quoted = `x: "${"[".repeat(depth)}"\ny: '${"{".repeat(depth)}'\n# ${"[".repeat(depth)}\n`;
        expect(flowNestingBeyond(quoted, MAX_YAML_DEPTH)).toBeNull();
      }),
      { numRuns: 200 },
    );
  });
});
