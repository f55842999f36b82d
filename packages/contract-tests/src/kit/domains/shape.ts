import { ContextEngine, isContextEngine } from "@context-engine/core";
import { expect } from "vitest";
import { it } from "../it.js";
import type { Harness } from "../harness.js";

const NAME_RE = /^[a-z][a-z0-9_-]*$/;

// Fields the host reads directly; all must be finite numbers at all times.
const NUMERIC_FIELDS = [
  "lastPromptTokens",
  "lastCompletionTokens",
  "lastTotalTokens",
  "thresholdTokens",
  "contextLength",
  "compressionCount",
  "thresholdPercent",
  "protectFirstN",
  "protectLastN",
  "summaryTargetRatio",
  "lastRealPromptTokens",
  "lastCompressionRoughTokens",
] as const;

export function registerShape(h: Harness): void {
  it("is an instance of ContextEngine", async () => {
    const engine = await h.create({ skipUpdateModel: true });
    expect(
      engine instanceof ContextEngine,
      isContextEngine(engine)
        ? "createEngine returned a duck-typed object: extend ContextEngine from @context-engine/core (and make sure only one copy of core is installed)"
        : "createEngine must return an instance of a ContextEngine subclass",
    ).toBe(true);
  }, h.timeout);

  it("has a name that is a non-empty identifier matching the plugin name", async () => {
    const engine = await h.create({ skipUpdateModel: true });
    const name: unknown = engine.name;
    expect(typeof name, "engine.name must be a string").toBe("string");
    expect(NAME_RE.test(name as string), `engine.name ${JSON.stringify(name)} must match ${NAME_RE} (lowercase, digits, _ and -)`).toBe(true);
    expect(name, `engine.name must equal the plugin name the user selects with context.engine (${JSON.stringify(h.options.name)})`).toBe(h.options.name);
  }, h.timeout);

  it("has finite numeric fields after construction and updateModel", async () => {
    const engine = await h.create({ skipUpdateModel: true });
    const check = (when: string) => {
      for (const field of NUMERIC_FIELDS) {
        const value = (engine as unknown as Record<string, unknown>)[field];
        expect(
          typeof value === "number" && Number.isFinite(value),
          `${field} must be a finite number ${when}, got ${String(value)}; initialise it in the constructor`,
        ).toBe(true);
      }
    };
    check("after construction");
    await engine.updateModel(h.model, h.contextLength);
    check(`after updateModel(${JSON.stringify(h.model)}, ${h.contextLength})`);
    expect(engine.contextLength, "updateModel must set contextLength").toBe(h.contextLength);
  }, h.timeout);
}
