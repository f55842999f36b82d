import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { acceptMessageTimes, estimateTextTokens, inputBudgetTokens, requestLimitTokens, toolSchemasTokens } from "../src/index.js";

describe("inputBudgetTokens", () => {
  it("is the window less the reserve (capped at half the window) and the tool schemas, at least 1; 0 without a window", () => {
    expect(inputBudgetTokens(8000, 1000, 300)).toBe(6700);
    expect(inputBudgetTokens(4000, 50_000, 0)).toBe(2000);
    expect(inputBudgetTokens(1000, 0, 5000)).toBe(1);
    expect(inputBudgetTokens(0, 1000, 10)).toBe(0);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2_000_000 }), fc.nat(3_000_000), fc.nat(100_000), (window, reserve, tools) => {
        const budget = inputBudgetTokens(window, reserve, tools);
        expect(budget).toBeGreaterThanOrEqual(1);
        expect(budget).toBeLessThanOrEqual(requestLimitTokens(window, reserve));
        expect(requestLimitTokens(window, reserve)).toBeGreaterThanOrEqual(Math.ceil(window / 2));
      }),
    );
  });

  it("counts tool definitions as their JSON, and none as 0", () => {
    const tools = [{ type: "function", function: { name: "read", description: "Read a file", parameters: { type: "object" } } }];
    expect(toolSchemasTokens(tools)).toBe(estimateTextTokens(JSON.stringify(tools)));
    expect(toolSchemasTokens([])).toBe(0);
    expect(toolSchemasTokens(undefined)).toBe(0);
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = cyclic;
    expect(toolSchemasTokens([cyclic])).toBeGreaterThan(0);
  });
});

describe("acceptMessageTimes", () => {
  it("keeps epoch-ms times that line up with the list; anything else is null, a list of another length is ignored", () => {
    const t = Date.UTC(2024, 4, 1);
    expect(acceptMessageTimes([t, null, t + 1], 3)).toEqual([t, null, t + 1]);
    expect(acceptMessageTimes([t, "2024-05-01", Number.NaN, -5, 1.5, 9e15, {}, 0], 8)).toEqual([t, null, null, null, null, null, null, 0]);
    expect(acceptMessageTimes([t], 2)).toBeNull();
    expect(acceptMessageTimes(undefined, 0)).toBeNull();
    expect(acceptMessageTimes("x", 1)).toBeNull();
  });
});
