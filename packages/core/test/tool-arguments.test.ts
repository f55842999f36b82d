import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MAX_TOOL_ARGUMENTS_CHARS, parseToolArguments } from "../src/index.js";

const Search = z.strictObject({ query: z.string().min(1), limit: z.number().int().optional() });
const NoArgs = z.strictObject({ verbose: z.boolean().default(false) });

function errorOf(result: ReturnType<typeof parseToolArguments>): string {
  expect(result.ok).toBe(false);
  return result.ok ? "" : (JSON.parse(result.error) as { error: string }).error;
}

describe("parseToolArguments on bad input", () => {
  it("says the arguments were null when the schema needs some", () => {
    for (const raw of [null, "null"]) expect(errorOf(parseToolArguments("search", Search, raw))).toBe("search got null for its arguments; it takes an object. search needs `query`: a string; it was missing.");
  });

  it("treats null, empty and absent arguments as {} when the schema accepts that", () => {
    for (const raw of [null, "null", "", undefined]) expect(parseToolArguments("status", NoArgs, raw)).toEqual({ ok: true, data: { verbose: false } });
  });

  it("names each mistyped or misspelled key", () => {
    expect(errorOf(parseToolArguments("search", Search, { query: "x", limit: null }))).toBe("search: `limit` must be a number; it was null.");
    expect(errorOf(parseToolArguments("search", Search, { qeury: "x" }))).toBe("search needs `query`: a string; it was missing. search has no argument `qeury`.");
  });

  it("refuses megabytes and deep nesting before parsing or validating them", () => {
    const huge = JSON.stringify({ query: "x".repeat(MAX_TOOL_ARGUMENTS_CHARS) });
    expect(errorOf(parseToolArguments("search", Search, huge))).toMatch(/characters, at most 1048576 are accepted/);
    const deep = `${'{"a":'.repeat(20_000)}1${"}".repeat(20_000)}`;
    expect(errorOf(parseToolArguments("search", Search, deep))).toMatch(/nested more than 64 levels deep/);
    let value: unknown = 1;
    for (let i = 0; i < 100_000; i++) value = { a: value };
    expect(errorOf(parseToolArguments("search", Search, value))).toMatch(/nested more than 64 levels deep/);
  });
});

describe("argument errors in plain words, with the tool's JSON schema", () => {
  const Lookup = z.strictObject({
    topic: z.string().min(1).max(200),
    depth: z.number().int().min(1).max(5).default(1),
    kinds: z.array(z.enum(["note", "fact"])).optional(),
    id: z.union([z.string().min(1), z.number().int().positive()]).optional(),
  });
  const parameters = {
    type: "object",
    properties: {
      topic: { type: "string", minLength: 1, maxLength: 200, description: "The subject to look up." },
      depth: { type: "integer", minimum: 1, maximum: 5 },
      kinds: { type: "array", items: { type: "string", enum: ["note", "fact"] } },
      id: { oneOf: [{ type: "string" }, { type: "integer", minimum: 1 }] },
    },
    required: ["topic"],
    additionalProperties: false,
  };
  const run = (raw: unknown) => errorOf(parseToolArguments("lookup", Lookup, raw, parameters));

  it("names a missing argument with what it is for and its type", () => {
    expect(run({})).toBe("lookup needs `topic`: the subject to look up (a string of 1 to 200 characters); it was missing.");
  });

  it("gives the accepted range, choices or forms beside the value sent", () => {
    expect(run({ topic: "x", depth: 9 })).toBe("lookup: `depth` must be a whole number from 1 to 5; it was 9.");
    expect(run({ topic: "x", depth: "2" })).toBe('lookup: `depth` must be a whole number from 1 to 5; it was "2".');
    expect(run({ topic: "x", kinds: ["rumour"] })).toBe('lookup: `kinds[0]` must be one of "note" or "fact"; it was "rumour".');
    expect(run({ topic: "x", id: 0 })).toBe("lookup: `id` must be a string or a whole number of at least 1; it was 0.");
    expect(run({ topic: "" })).toBe("lookup: `topic` must be a string of 1 to 200 characters; it was an empty string.");
  });

  it("suggests the closest accepted key for a misspelt one and lists the keys", () => {
    expect(run({ topic: "x", dpeth: 2 })).toBe("lookup has no argument `dpeth` (did you mean `depth`?); it takes `topic`, `depth`, `kinds`, `id`.");
  });

  it("says the arguments must be an object, listing them, when they are not", () => {
    expect(run([1, 2])).toBe("lookup takes an object of named arguments (`topic` (required), `depth`, `kinds`, `id`); it got a list of 2 items.");
  });

  it("never repeats zod's wording", () => {
    for (const raw of [{}, { topic: 1 }, { topic: "x", depth: 0.5 }, { topic: "x", kinds: "note" }, { topic: "x", extra: true }, 7]) {
      expect(run(raw)).not.toMatch(/Invalid input|expected \w+, received|Too (small|big)|Unrecognized key/);
    }
  });
});
