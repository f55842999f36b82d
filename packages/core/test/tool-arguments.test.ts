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
    for (const raw of [null, "null"]) expect(errorOf(parseToolArguments("search", Search, raw))).toMatch(/^invalid arguments for search: the arguments are null; expected an object \(query: /);
  });

  it("treats null, empty and absent arguments as {} when the schema accepts that", () => {
    for (const raw of [null, "null", "", undefined]) expect(parseToolArguments("status", NoArgs, raw)).toEqual({ ok: true, data: { verbose: false } });
  });

  it("names each mistyped or misspelled key", () => {
    expect(errorOf(parseToolArguments("search", Search, { query: "x", limit: null }))).toMatch(/limit: /);
    expect(errorOf(parseToolArguments("search", Search, { qeury: "x" }))).toMatch(/query: .*Unrecognized key.*qeury|qeury/s);
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
