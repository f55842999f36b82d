import { describe, expect, it } from "vitest";
import { sameJson } from "../src/engine/same-json.js";

describe("sameJson (a no-op compress compares the host's list with its result)", () => {
  const message = { role: "assistant", content: "done", tool_calls: [{ id: "c1", type: "function", function: { name: "grep", arguments: '{"q":"x"}' } }] };

  it("calls equal what prints the same, key order and undefined fields aside", () => {
    expect(sameJson(message, structuredClone(message))).toBe(true);
    expect(sameJson({ role: "user", content: "hi", name: undefined }, { content: "hi", role: "user" })).toBe(true);
    expect(sameJson([1, "a", null, { x: [true] }], [1, "a", null, { x: [true] }])).toBe(true);
  });

  it("never calls different values the same", () => {
    const other = structuredClone(message);
    other.tool_calls[0]!.function.arguments = '{"q":"y"}';
    expect(sameJson(message, other)).toBe(false);
    expect(sameJson({ role: "user", content: "hi" }, { role: "user", content: "hi", name: "n" })).toBe(false);
    expect(sameJson({ content: null }, { content: "" })).toBe(false);
    expect(sameJson([1, 2], [1, 2, 3])).toBe(false);
    expect(sameJson({ a: [1] }, { a: { 0: 1 } })).toBe(false);
    expect(sameJson("1", 1)).toBe(false);
  });

  it("compares anything but plain objects and arrays as JSON", () => {
    expect(sameJson({ at: new Date(0) }, { at: new Date(0) })).toBe(true);
    expect(sameJson({ at: new Date(0) }, { at: new Date(1) })).toBe(false);
    let deep: unknown = "leaf";
    let deeper: unknown = "leaf";
    for (let i = 0; i < 100; i++) {
      deep = { d: deep };
      deeper = { d: deeper };
    }
    expect(sameJson(deep, deeper)).toBe(true);
  });
});
