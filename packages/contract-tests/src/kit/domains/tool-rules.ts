import { isPlainObject } from "@context-engine/core";
import { expect } from "vitest";
import { it } from "../it.js";
import { cloneMessages } from "../../fixtures/clone.js";
import { fixtures } from "../../fixtures/conversations.js";
import type { Harness } from "../harness.js";
import { jsonSchemaProblems } from "../json-schema.js";
import { newSessionId, replayTurns, startSession } from "../session.js";
import { exampleArguments, toolSchemasOf } from "../tool-args.js";

const UNKNOWN = "contract_no_such_tool";

/** What must not depend on the argument form: error or not, and the top-level fields (values may vary, e.g. timings). */
function shapeOf(result: unknown): { error: boolean; keys: string[] } {
  try {
    const parsed: unknown = JSON.parse(String(result));
    const keys = isPlainObject(parsed) ? Object.keys(parsed).sort() : [];
    return { error: keys.includes("error"), keys };
  } catch {
    return { error: true, keys: [] };
  }
}

export function registerToolRules(h: Harness): void {
  it("tool parameters are valid JSON Schema", async (ctx) => {
    const caps = await h.capabilities();
    if (!caps.tools) return ctx.skip(`tools not implemented (${caps.from.tools})`);
    const engine = await h.create();
    const list = engine.getToolSchemas();
    for (const schema of Array.isArray(list) ? list : []) {
      const params = (schema as { parameters?: unknown }).parameters;
      const problems = jsonSchemaProblems(params);
      if (isPlainObject(params) && params.type !== "object") problems.unshift(`parameters.type must be "object", got ${JSON.stringify(params.type)}`);
      expect(problems, `tool ${JSON.stringify((schema as { name?: unknown }).name)}: its parameters are not valid JSON Schema`).toEqual([]);
    }
  }, h.timeout);

  it("handleToolCall answers every name getToolSchemas declares (schema and handler names match)", async (ctx) => {
    const caps = await h.capabilities();
    if (!caps.tools) return ctx.skip(`tools not implemented (${caps.from.tools})`);
    const engine = await h.create();
    const sessionId = newSessionId("names");
    await startSession(h, engine, sessionId);
    const messages = cloneMessages(fixtures.codingSession.messages);
    await replayTurns(engine, messages, sessionId);
    const unknown = String(await engine.handleToolCall(UNKNOWN, {}, { sessionId, messages }));
    for (const schema of toolSchemasOf(engine)) {
      const args = h.options.toolArguments?.[schema.name] ?? exampleArguments(schema.parameters, "token bucket");
      const result = String(await engine.handleToolCall(schema.name, args, { sessionId, messages }));
      const asUnknown = unknown.split(UNKNOWN).join(schema.name);
      expect(result === asUnknown || /unknown (context engine )?tool/i.test(result), `handleToolCall(${JSON.stringify(schema.name)}) answered as for an unknown tool (${result.slice(0, 120)}): the handler must dispatch on the very names getToolSchemas returns`).toBe(false);
    }
  }, h.timeout);

  it("handleToolCall gives the same answer for JSON-string and object arguments", async (ctx) => {
    const caps = await h.capabilities();
    if (!caps.tools) return ctx.skip(`tools not implemented (${caps.from.tools})`);
    const engine = await h.create();
    const sessionId = newSessionId("argforms");
    await startSession(h, engine, sessionId);
    const messages = cloneMessages(fixtures.codingSession.messages);
    await replayTurns(engine, messages, sessionId);
    for (const schema of toolSchemasOf(engine)) {
      const args = h.options.toolArguments?.[schema.name] ?? exampleArguments(schema.parameters, "token bucket");
      const asObject = await engine.handleToolCall(schema.name, args, { sessionId, messages });
      const asString = await engine.handleToolCall(schema.name, JSON.stringify(args), { sessionId, messages });
      expect(shapeOf(asString), `handleToolCall(${JSON.stringify(schema.name)}) must accept arguments as a JSON string (what providers send) as it accepts the parsed object (use parseToolArguments): got ${String(asString).slice(0, 120)} for the string, ${String(asObject).slice(0, 120)} for the object`).toEqual(shapeOf(asObject));
    }
  }, h.timeout);
}
