import { z } from "zod";

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

/** Format a zod error on tool arguments as a one-line reason. */
export function describeArgumentError(tool: string, error: z.ZodError): string {
  const parts = error.issues.map((issue) => {
    const where = issue.path.length ? issue.path.join(".") : "arguments";
    return `${where}: ${issue.message}`;
  });
  return `invalid arguments for ${tool}: ${parts.join("; ")}`;
}

/**
 * Parse tool arguments (an object, or a JSON string as providers send them)
 * against a schema. Returns the data or a JSON error string.
 */
export function parseToolArguments<S extends z.ZodType>(
  tool: string,
  schema: S,
  raw: unknown,
): { ok: true; data: z.infer<S> } | { ok: false; error: string } {
  let value = raw;
  if (typeof raw === "string") {
    try {
      value = raw.trim() === "" ? {} : JSON.parse(raw);
    } catch {
      return { ok: false, error: toolError(`invalid arguments for ${tool}: not valid JSON`) };
    }
  }
  if (value === undefined || value === null) value = {};
  const parsed = schema.safeParse(value);
  if (!parsed.success) return { ok: false, error: toolError(describeArgumentError(tool, parsed.error)) };
  return { ok: true, data: parsed.data };
}
