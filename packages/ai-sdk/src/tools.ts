import type { ContextEngine, Message, ToolSchema } from "@context-engine/core";
import { MAX_RESULT_DEPTH, ToolSchemaSchema, exceedsDepth, toolError } from "@context-engine/core";
import type { ToolSet } from "ai";
import { attempt, guarded } from "./guard.js";

/** A Standard Schema with JSON Schema (both SDK majors accept it as `inputSchema`), passing input through. */
function standardJsonSchema(parameters: Record<string, unknown>) {
  return {
    "~standard": {
      version: 1 as const,
      vendor: "context-engine",
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: () => parameters, output: () => parameters },
    },
  };
}

export interface EngineToolOptions {
  /** Bound on each handler call; default 30 s. */
  timeoutMs?: number;
  /** The engine's current view of the conversation, handed to tool handlers (read-only). */
  messages?: () => readonly Message[];
  sessionId?: string;
  onError?: (where: string, reason: string) => void;
}

/**
 * The engine's tools as an AI SDK tool set. A handler that throws, hangs or
 * returns a non-string answers the model with a JSON error instead of
 * failing the step.
 */
export function engineTools(engine: ContextEngine, options: EngineToolOptions = {}): ToolSet {
  const timeoutMs = options.timeoutMs ?? 30_000;
  // Copied into plain JSON data inside the guard: a cyclic schema, a throwing getter or a Proxy fails here, not in the SDK.
  const schemas = attempt(() => plainList(engine.getToolSchemas()));
  if (!schemas.ok || !Array.isArray(schemas.value)) {
    options.onError?.("getToolSchemas", schemas.ok ? "did not return a list" : schemas.reason);
    return {};
  }
  const tools: Record<string, unknown> = {};
  for (const raw of schemas.value) {
    const parsed = ToolSchemaSchema.safeParse(raw);
    if (!parsed.success) {
      options.onError?.("getToolSchemas", `skipped an invalid tool schema: ${parsed.error.issues[0]?.message ?? "invalid"}`);
      continue;
    }
    const schema: ToolSchema = parsed.data;
    tools[schema.name] = {
      type: "function",
      description: schema.description,
      inputSchema: standardJsonSchema(schema.parameters),
      execute: async (input: unknown, ctx: { abortSignal?: AbortSignal } = {}) => {
        const outcome = await guarded(timeoutMs, (signal) =>
          engine.handleToolCall(schema.name, input, {
            messages: options.messages?.(),
            sessionId: options.sessionId,
            signal: ctx.abortSignal ?? signal,
          }),
        );
        if (!outcome.ok) return toolError(`${schema.name} failed: ${outcome.reason}`);
        if (typeof outcome.value === "string") return outcome.value;
        return toolError(`${schema.name} returned ${describeValue(outcome.value)} instead of a JSON string`);
      },
    };
  }
  // Built structurally (one build serves both SDK majors); each entry is a valid `Tool` of either.
  return tools as ToolSet;
}

/** A JSON copy of each item of a list (an item that is not plain JSON data becomes null and is skipped as invalid). */
function plainList(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  return value.map((item: unknown) => {
    try {
      return exceedsDepth(item, MAX_RESULT_DEPTH) ? null : (JSON.parse(JSON.stringify(item)) as unknown);
    } catch {
      return null;
    }
  });
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
