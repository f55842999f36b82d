import { ToolSchemaSchema, toolError } from "@context-engine/core";
import type { ContextEngine, Logger, Message, ToolCall } from "@context-engine/core";
import { z } from "zod";
import { describeError } from "./errors.js";

/** An OpenAI function tool as sent to the provider. */
export interface FunctionTool {
  type: "function";
  function: { name: string; description?: string; parameters: Record<string, unknown>; [key: string]: unknown };
  [key: string]: unknown;
}

/** A tool as the host accepts it: a function tool, or a bare `{ name, description, parameters }` schema. */
export type ToolDefinition = FunctionTool | { name: string; description?: string; parameters: Record<string, unknown> };

const FunctionToolSchema = z.looseObject({ type: z.literal("function"), function: ToolSchemaSchema });

/** One call the agent's own tool executor must answer. */
export interface ToolInvocation {
  id: string;
  name: string;
  /** The raw JSON argument string as the model sent it. */
  rawArguments: string;
  /** Parsed arguments, or undefined when they were not valid JSON. */
  args: unknown;
  call: ToolCall;
}

export interface ToolExecutionContext {
  sessionId: string;
  turnId: string;
  /** The live conversation; treat as read-only. */
  messages: readonly Message[];
  signal: AbortSignal | undefined;
}

/**
 * Executes the agent's own (non-engine) tools. Return the tool result: a
 * string as is, anything else is JSON-encoded. A throw becomes a JSON error
 * string for the model.
 */
export type ToolExecutor = (call: ToolInvocation, context: ToolExecutionContext) => unknown;

/** Validate and normalise the agent's tool list into function tools. */
export function normalizeAgentTools(tools: readonly ToolDefinition[] | undefined): FunctionTool[] {
  const out: FunctionTool[] = [];
  const seen = new Set<string>();
  (tools ?? []).forEach((tool, index) => {
    const asFunction = FunctionToolSchema.safeParse(tool);
    let fn: FunctionTool;
    if (asFunction.success) fn = asFunction.data as unknown as FunctionTool;
    else {
      const bare = ToolSchemaSchema.safeParse(tool);
      if (!bare.success) {
        const issue = bare.error.issues[0];
        throw new TypeError(
          `tools[${index}]: expected { type: "function", function: { name, parameters } } or { name, parameters }` +
            (issue ? ` (${issue.path.join(".") || "tool"}: ${issue.message})` : ""),
        );
      }
      fn = { type: "function", function: bare.data as FunctionTool["function"] };
    }
    if (seen.has(fn.function.name)) throw new TypeError(`tools[${index}]: duplicate tool name "${fn.function.name}"`);
    seen.add(fn.function.name);
    out.push(fn);
  });
  return out;
}

/**
 * The engine's tools, wrapped as function tools. Invalid or nameless schemas
 * are skipped with a warning, and a name the agent already uses is skipped
 * (the agent's tool wins). A throwing `getToolSchemas` yields no tools.
 */
export function collectEngineTools(
  engine: ContextEngine,
  agentTools: readonly FunctionTool[],
  logger: Logger,
): { tools: FunctionTool[]; names: Set<string> } {
  let schemas: unknown;
  try {
    schemas = engine.getToolSchemas();
  } catch (error) {
    logger.warn("context engine getToolSchemas failed; no engine tools", { engine: engine.name, error: describeError(error) });
    return { tools: [], names: new Set() };
  }
  if (!Array.isArray(schemas)) {
    // A promise is not a list; its rejection must not go unhandled.
    if (schemas instanceof Promise) schemas.catch(() => {});
    if (schemas !== undefined && schemas !== null) logger.warn("context engine getToolSchemas did not return a list", { engine: engine.name });
    return { tools: [], names: new Set() };
  }
  const taken = new Set(agentTools.map((t) => t.function.name));
  const tools: FunctionTool[] = [];
  const names = new Set<string>();
  schemas.forEach((schema, index) => {
    const parsed = ToolSchemaSchema.safeParse(schema);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      logger.warn("skipping invalid context engine tool schema", {
        engine: engine.name,
        index,
        field: issue?.path.join(".") || "schema",
        expected: issue?.message,
      });
      return;
    }
    const name = parsed.data.name;
    if (taken.has(name) || names.has(name)) {
      logger.warn("skipping context engine tool whose name is already taken", { engine: engine.name, name });
      return;
    }
    names.add(name);
    tools.push({ type: "function", function: parsed.data as FunctionTool["function"] });
  });
  return { tools, names };
}

/** Parse a tool call's JSON arguments; undefined when they are not valid JSON. */
export function parseArguments(raw: string): { ok: true; value: unknown } | { ok: false; error: string } {
  if (raw.trim() === "") return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch (error) {
    return { ok: false, error: describeError(error) };
  }
}

/** Turn whatever a tool handler returned into the tool message content. */
export function toolResultText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return toolError("tool returned nothing");
  try {
    return JSON.stringify(value) ?? toolError("tool returned nothing");
  } catch (error) {
    if (error instanceof RangeError) return toolError("tool result is nested too deeply to serialise");
    return toolError(`tool result is not serialisable: ${describeError(error)}`);
  }
}
