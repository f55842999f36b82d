import { isPlainObject, ToolSchemaSchema } from "@context-engine/core";
import { expect } from "vitest";
import { it } from "../it.js";
import { cloneMessages } from "../../fixtures/clone.js";
import { fixtures } from "../../fixtures/conversations.js";
import type { Harness } from "../harness.js";
import { registerToolRules } from "./tool-rules.js";
import { newSessionId, replayTurns, startSession } from "../session.js";
import { exampleArguments, toolSchemasOf } from "../tool-args.js";
import { describeError } from "../util.js";

/** Parse a tool result; fails the test with a precise message when it is not a JSON string. */
function parseResult(label: string, result: unknown): unknown {
  expect(typeof result, `${label} must return a string (JSON), got ${typeof result}`).toBe("string");
  try {
    return JSON.parse(result as string);
  } catch {
    expect.fail(`${label} must return a JSON string, got ${JSON.stringify(String(result).slice(0, 120))}`);
  }
}

function expectJsonError(label: string, result: unknown): void {
  const parsed = parseResult(label, result);
  expect(isPlainObject(parsed) && "error" in parsed, `${label} must return a JSON object with an "error" field, got ${String(result).slice(0, 160)}`).toBe(true);
}

async function engineInSession(h: Harness) {
  const engine = await h.create();
  const sessionId = newSessionId("tools");
  await startSession(h, engine, sessionId);
  const messages = cloneMessages(fixtures.codingSession.messages);
  await replayTurns(engine, messages, sessionId);
  return { engine, sessionId, messages };
}

export function registerTools(h: Harness): void {
  it("getToolSchemas returns valid JSON Schema objects with unique names", async (ctx) => {
    const caps = await h.capabilities();
    if (!caps.tools) return ctx.skip(`tools not implemented (${caps.from.tools})`);
    const engine = await h.create();
    const schemas = engine.getToolSchemas();
    expect(Array.isArray(schemas) && schemas.length > 0, "the engine declares tools but getToolSchemas() returned no schema").toBe(true);
    const names = new Set<string>();
    schemas.forEach((schema, i) => {
      const parsed = ToolSchemaSchema.safeParse(schema);
      expect(
        parsed.success,
        `tool schema ${i} (${JSON.stringify((schema as { name?: unknown })?.name)}) must be a bare function schema { name, description, parameters: { type: "object", … } }: ${parsed.success ? "" : parsed.error.issues.map((x) => `${x.path.join(".")}: ${x.message}`).join("; ")}`,
      ).toBe(true);
      const params = (schema as { parameters: Record<string, unknown> }).parameters;
      if (params.properties !== undefined) expect(isPlainObject(params.properties), `tool ${schema.name}: parameters.properties must be an object`).toBe(true);
      if (params.required !== undefined) expect(Array.isArray(params.required), `tool ${schema.name}: parameters.required must be a list`).toBe(true);
      expect(() => JSON.stringify(schema), `tool ${schema.name}: the schema must be serialisable to JSON`).not.toThrow();
      expect(names.has(schema.name), `tool name ${JSON.stringify(schema.name)} is used twice`).toBe(false);
      names.add(schema.name);
    });
  }, h.timeout);

  it("handleToolCall returns a JSON string for each known tool", async (ctx) => {
    const caps = await h.capabilities();
    if (!caps.tools) return ctx.skip(`tools not implemented (${caps.from.tools})`);
    const { engine, sessionId, messages } = await engineInSession(h);
    for (const schema of toolSchemasOf(engine)) {
      const args = h.options.toolArguments?.[schema.name] ?? exampleArguments(schema.parameters, "token bucket");
      for (const form of [args, JSON.stringify(args)]) {
        let result: unknown;
        try {
          result = await engine.handleToolCall(schema.name, form, { sessionId, messages });
        } catch (error) {
          expect.fail(`handleToolCall(${JSON.stringify(schema.name)}, ${JSON.stringify(form)}) threw ${describeError(error)}; return a JSON string instead`);
        }
        parseResult(`handleToolCall(${JSON.stringify(schema.name)}, ${typeof form === "string" ? "JSON string" : "object"} arguments)`, result);
      }
    }
  }, h.timeout);

  it("handleToolCall returns a JSON error for an unknown tool", async () => {
    const engine = await h.create();
    let result: unknown;
    try {
      result = await engine.handleToolCall("contract_no_such_tool", { query: "x" }, { sessionId: newSessionId("unknown"), messages: [] });
    } catch (error) {
      expect.fail(`handleToolCall for an unknown tool threw ${describeError(error)}; return toolError(...) (or call super.handleToolCall)`);
    }
    expectJsonError("handleToolCall for an unknown tool", result);
  }, h.timeout);

  it("handleToolCall returns a JSON error for bad arguments", async (ctx) => {
    const caps = await h.capabilities();
    if (!caps.tools) return ctx.skip(`tools not implemented (${caps.from.tools})`);
    const { engine, sessionId, messages } = await engineInSession(h);
    for (const schema of toolSchemasOf(engine)) {
      const required = Array.isArray(schema.parameters.required) ? (schema.parameters.required as string[]) : [];
      const bad: Array<[string, unknown]> = [
        ["arguments that are not valid JSON", "{not json"],
        ["a JSON list instead of an object", "[1, 2, 3]"],
      ];
      if (required.length > 0) bad.push([`arguments missing the required ${required.join(", ")}`, {}]);
      for (const [label, args] of bad) {
        let result: unknown;
        try {
          result = await engine.handleToolCall(schema.name, args, { sessionId, messages });
        } catch (error) {
          expect.fail(`handleToolCall(${JSON.stringify(schema.name)}) with ${label} threw ${describeError(error)}; validate with parseToolArguments and return its error`);
        }
        expectJsonError(`handleToolCall(${JSON.stringify(schema.name)}) with ${label}`, result);
      }
    }
  }, h.timeout);

  it("without tools, getToolSchemas is empty", async (ctx) => {
    const caps = await h.capabilities();
    if (caps.tools) return ctx.skip("the engine implements tools");
    const engine = await h.create();
    expect(engine.getToolSchemas(), "an engine that declares no tools must return [] from getToolSchemas (declare capabilities.tools: true if it has tools)").toEqual([]);
  }, h.timeout);

  registerToolRules(h);
}
