import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { DescribeArgsSchema, ExpandArgsSchema, GrepArgsSchema, handleLcmToolCall, LCM_TOOL_SCHEMAS } from "../src/tools/index.js";
import { tempStore } from "./helpers.js";

// Valid arguments per tool; each generated case breaks one of them in one way.
const VALID: Record<string, Record<string, unknown>> = {
  lcm_grep: { query: "deploy key", limit: 5 },
  lcm_describe: { id: "msg_1" },
  lcm_expand: { id: "msg_1", max_tokens: 500 },
};

const SCHEMAS: Record<string, z.ZodType> = { lcm_grep: GrepArgsSchema, lcm_describe: DescribeArgsSchema, lcm_expand: ExpandArgsSchema };

type Breakage = { kind: "drop"; key: string } | { kind: "retype"; key: string; value: unknown } | { kind: "unknown"; key: string; value: unknown };

function breakage(tool: string): fc.Arbitrary<Breakage> {
  const parameters = LCM_TOOL_SCHEMAS.find((s) => s.name === tool)!.parameters as unknown as { properties: Record<string, unknown>; required: string[] };
  const keys = Object.keys(parameters.properties);
  const known = new Set(keys);
  return fc.oneof(
    fc.constantFrom(...parameters.required).map((key): Breakage => ({ kind: "drop", key })),
    fc.record({ kind: fc.constant("retype" as const), key: fc.constantFrom(...keys), value: fc.oneof(fc.anything(), fc.integer({ min: -1e6, max: 1e6 }), fc.string()) }),
    fc.record({
      kind: fc.constant("unknown" as const),
      key: fc.string({ minLength: 1, maxLength: 12 }).filter((k) => /^[a-z_]+$/.test(k) && !known.has(k)),
      value: fc.jsonValue(),
    }),
  );
}

function apply(valid: Record<string, unknown>, b: Breakage): Record<string, unknown> {
  const args = { ...valid };
  if (b.kind === "drop") delete args[b.key];
  // An own property even for `__proto__` (as JSON.parse makes it), never a new prototype.
  else Object.defineProperty(args, b.key, { value: b.value, enumerable: true, writable: true, configurable: true });
  return args;
}

describe("every LCM tool, given generated bad arguments", () => {
  for (const tool of Object.keys(VALID)) {
    it(`${tool}: answers with a JSON error in plain words naming the argument, never a throw`, async () => {
      const { store, cleanup } = tempStore();
      try {
        await fc.assert(
          fc.asyncProperty(breakage(tool), fc.boolean(), async (b, asJson) => {
            const args = apply(VALID[tool]!, b);
            const sent = asJson ? JSON.stringify(args) : args;
            // A retyped value may still be valid (limit: 7): the tool then runs and answers on its own terms.
            if (SCHEMAS[tool]!.safeParse(asJson ? JSON.parse(sent as string) : args).success) return;
            const raw = await handleLcmToolCall(store, tool, sent, { conversationId: 1 });
            const parsed = JSON.parse(raw) as { error?: string };
            expect(parsed.error, raw).toBeTypeOf("string");
            const error = parsed.error!;
            expect(error).toContain(tool);
            expect(error).toContain(`\`${b.key}`);
            expect(error).not.toMatch(/Invalid input|expected \w+, received|Too (small|big)|Unrecognized key|invalid_type/);
            if (b.kind === "drop") expect(error).toContain(`${tool} needs \`${b.key}\``);
            if (b.kind === "unknown") expect(error).toContain(`${tool} has no argument \`${b.key}\``);
          }),
          { numRuns: 150 },
        );
      } finally {
        cleanup();
      }
    });
  }
});
