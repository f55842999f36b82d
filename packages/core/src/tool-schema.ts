import { z } from "zod";
import { describeArgumentProblems, type ParametersSchema } from "./argument-errors.js";
import { exceedsDepth } from "./validate-result.js";

/** A bare function schema as an engine returns it; the host wraps it as `{ type: "function", function }`. */
export const ToolSchemaSchema = z.looseObject({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "a tool name of 1-64 letters, digits, _ or -"),
  description: z.string().optional(),
  parameters: z.looseObject({ type: z.literal("object") }),
});

export type ToolSchema = z.infer<typeof ToolSchemaSchema>;

/** The JSON error string a tool handler returns instead of throwing. */
export function toolError(message: string, details?: Record<string, unknown>): string {
  return JSON.stringify({ error: message, ...details });
}

/**
 * Tool-argument problems as one line of plain words (see argument-errors.ts). Pass the arguments and
 * the tool's JSON schema (`parameters`) to say what each property is for and which keys exist.
 */
export function describeArgumentError(tool: string, error: z.ZodError, input?: unknown, parameters?: ParametersSchema): string {
  return describeArgumentProblems(tool, error, input, parameters);
}

/** Tool arguments longer than this are refused before parsing. */
export const MAX_TOOL_ARGUMENTS_CHARS = 1_048_576;
/** Tool arguments nested deeper than this are refused before validation. */
export const MAX_TOOL_ARGUMENTS_DEPTH = 64;

/**
 * Parse tool arguments (an object, or a JSON string as providers send them)
 * against a schema. Returns the data or a JSON error string. Empty or
 * absent arguments count as `{}`; `null` too when the schema accepts `{}`,
 * otherwise the error says the arguments were null. Arguments too long or
 * too deeply nested are refused before anything parses them. With the tool's JSON schema
 * (`parameters`, what the model was shown) errors say what each argument is for.
 */
export function parseToolArguments<S extends z.ZodType>(
  tool: string,
  schema: S,
  raw: unknown,
  parameters?: ParametersSchema,
): { ok: true; data: z.infer<S> } | { ok: false; error: string } {
  let value = raw;
  if (typeof raw === "string") {
    if (raw.length > MAX_TOOL_ARGUMENTS_CHARS) {
      return { ok: false, error: toolError(`invalid arguments for ${tool}: ${raw.length} characters, at most ${MAX_TOOL_ARGUMENTS_CHARS} are accepted`) };
    }
    try {
      value = raw.trim() === "" ? {} : JSON.parse(raw);
    } catch {
      return { ok: false, error: toolError(`invalid arguments for ${tool}: not valid JSON`) };
    }
  }
  if (exceedsDepth(value, MAX_TOOL_ARGUMENTS_DEPTH)) {
    return { ok: false, error: toolError(`invalid arguments for ${tool}: nested more than ${MAX_TOOL_ARGUMENTS_DEPTH} levels deep`) };
  }
  const wasNull = value === null;
  if (value === undefined || value === null) value = {};
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const reason = describeArgumentError(tool, parsed.error, value, parameters);
    return { ok: false, error: toolError(wasNull ? `${tool} got null for its arguments; it takes an object. ${reason}` : reason) };
  }
  return { ok: true, data: parsed.data };
}
