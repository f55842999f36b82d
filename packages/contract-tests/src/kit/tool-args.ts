import { isPlainObject, ToolSchemaSchema, type ContextEngine, type ToolSchema } from "@context-engine/core";

type Schema = Record<string, unknown>;

function firstType(schema: Schema): string | undefined {
  const t = schema.type;
  if (Array.isArray(t)) return t.find((x) => x !== "null") as string | undefined;
  return typeof t === "string" ? t : undefined;
}

/** A value that satisfies a (simple) JSON Schema, with strings set to `text`. */
export function exampleValue(schema: unknown, text: string): unknown {
  if (!isPlainObject(schema)) return text;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ("const" in schema) return schema.const;
  if (schema.default !== undefined) return schema.default;
  const variants = (schema.anyOf ?? schema.oneOf) as unknown;
  if (Array.isArray(variants) && variants.length > 0) return exampleValue(variants[0], text);
  switch (firstType(schema)) {
    case "integer":
      return typeof schema.minimum === "number" ? Math.ceil(schema.minimum) : 1;
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 1;
    case "boolean":
      return false;
    case "array":
      return schema.items ? [exampleValue(schema.items, text)] : [];
    case "object":
      return exampleArguments(schema, text);
    default:
      return text;
  }
}

/**
 * Arguments with every required property filled in (strings set to `text`).
 * Optional properties are left out: filling filters such as `since` or
 * `cursor` with made-up values would turn a good call into a bad one.
 */
export function exampleArguments(parameters: unknown, text: string): Record<string, unknown> {
  if (!isPlainObject(parameters)) return {};
  const props = isPlainObject(parameters.properties) ? parameters.properties : {};
  const required = Array.isArray(parameters.required) ? (parameters.required as string[]) : [];
  const out: Record<string, unknown> = {};
  for (const key of required) out[key] = key in props ? exampleValue(props[key], text) : text;
  return out;
}

/** The engine's tool schemas that parse, or [] when getToolSchemas throws. */
export function toolSchemasOf(engine: ContextEngine): ToolSchema[] {
  try {
    const list = engine.getToolSchemas();
    return Array.isArray(list) ? list.filter((s) => ToolSchemaSchema.safeParse(s).success) : [];
  } catch {
    return [];
  }
}
