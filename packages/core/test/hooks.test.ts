import { describe, expect, it } from "vitest";
import { acceptSelection, overridesHook, selectionRejectionReason, type Message } from "../src/index.js";
import { MinimalEngine } from "./helpers.js";

class Selecting extends MinimalEngine {
  override selectContext(messages: Message[]) {
    return messages.slice(-1);
  }
}
class Observing extends MinimalEngine {
  override onTurnComplete() {}
}

describe("overridesHook", () => {
  it("is false for inherited no-op defaults", () => {
    const e = new MinimalEngine();
    expect(overridesHook(e, "selectContext")).toBe(false);
    expect(overridesHook(e, "onTurnComplete")).toBe(false);
  });

  it("is true for subclass methods, per hook", () => {
    expect(overridesHook(new Selecting(), "selectContext")).toBe(true);
    expect(overridesHook(new Selecting(), "onTurnComplete")).toBe(false);
    expect(overridesHook(new Observing(), "onTurnComplete")).toBe(true);
  });

  it("is true for functions assigned on the instance", () => {
    const e = new MinimalEngine();
    e.selectContext = () => null;
    expect(overridesHook(e, "selectContext")).toBe(true);
  });

  it("is true for duck-typed engines that have the function, false when missing", () => {
    expect(overridesHook({ selectContext: () => null }, "selectContext")).toBe(true);
    expect(overridesHook({ name: "x" }, "selectContext")).toBe(false);
    expect(overridesHook({ selectContext: "nope" }, "selectContext")).toBe(false);
    expect(overridesHook(null, "selectContext")).toBe(false);
    expect(overridesHook(undefined, "onTurnComplete")).toBe(false);
  });

  it("recognises the default even when copied from another instance", () => {
    const a = new MinimalEngine();
    const duck = { selectContext: a.selectContext };
    expect(overridesHook(duck, "selectContext")).toBe(false);
  });
});

describe("acceptSelection (fail-open)", () => {
  const original: Message[] = [
    { role: "system", content: "sys" },
    { role: "user", content: "hello" },
  ];

  it.each([
    ["null", null],
    ["undefined", undefined],
    ["an empty list", []],
    ["a string", "messages"],
    ["an object", { role: "user", content: "x" }],
    ["a list holding a string", [{ role: "user", content: "x" }, "not a dict"]],
    ["a list holding null", [null]],
    ["a list holding an array", [[{ role: "user" }]]],
    ["a list holding a class instance", [new Date()]],
  ])("returns the very original object for %s", (_label, returned) => {
    expect(acceptSelection(original, returned)).toBe(original);
    expect(selectionRejectionReason(returned)).not.toBeNull();
  });

  it("accepts a non-empty list of plain objects, as is", () => {
    const replacement = [{ role: "user", content: "only this" }];
    expect(acceptSelection(original, replacement)).toBe(replacement);
    expect(selectionRejectionReason(replacement)).toBeNull();
  });

  it("passes unusual but well-formed replacements through for the sanitisers", () => {
    const replacement = [
      { role: "system", content: "s" },
      { role: "user", content: "a" },
      { role: "user", content: "b" },
    ];
    expect(acceptSelection(original, replacement)).toBe(replacement);
  });
});
