import { isPlainObject } from "@context-engine/core";

const TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);
const SCHEMA_LISTS = ["anyOf", "oneOf", "allOf"] as const;
const NUMBER_KEYS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems", "multipleOf"] as const;

/**
 * Problems that make `schema` invalid JSON Schema (the subset providers accept
 * for tool parameters), each with its path. Empty when valid.
 */
export function jsonSchemaProblems(schema: unknown, path = "parameters"): string[] {
  if (typeof schema === "boolean") return [];
  if (!isPlainObject(schema)) return [`${path} must be a schema object, got ${JSON.stringify(schema)}`];
  const out: string[] = [];
  const type = schema.type;
  if (type !== undefined) {
    const list = Array.isArray(type) ? type : [type];
    if (list.length === 0 || !list.every((t) => typeof t === "string" && TYPES.has(t))) {
      out.push(`${path}.type must be one of ${[...TYPES].join(", ")} (or a list of them), got ${JSON.stringify(type)}`);
    }
  }
  if (schema.properties !== undefined) {
    if (!isPlainObject(schema.properties)) out.push(`${path}.properties must be an object`);
    else for (const [key, sub] of Object.entries(schema.properties)) out.push(...jsonSchemaProblems(sub, `${path}.properties.${key}`));
  }
  if (schema.required !== undefined) {
    const req = schema.required;
    if (!Array.isArray(req) || !req.every((r) => typeof r === "string")) out.push(`${path}.required must be a list of property names`);
    else {
      if (new Set(req).size !== req.length) out.push(`${path}.required lists a name twice`);
      const props = isPlainObject(schema.properties) ? schema.properties : {};
      for (const r of req) if (!(r in props)) out.push(`${path}.required names "${r}", which is not in ${path}.properties`);
    }
  }
  if (schema.items !== undefined) {
    const items = schema.items;
    if (Array.isArray(items)) items.forEach((s, i) => out.push(...jsonSchemaProblems(s, `${path}.items[${i}]`)));
    else out.push(...jsonSchemaProblems(items, `${path}.items`));
  }
  if (schema.additionalProperties !== undefined && typeof schema.additionalProperties !== "boolean") {
    out.push(...jsonSchemaProblems(schema.additionalProperties, `${path}.additionalProperties`));
  }
  for (const key of SCHEMA_LISTS) {
    const v = schema[key];
    if (v === undefined) continue;
    if (!Array.isArray(v) || v.length === 0) out.push(`${path}.${key} must be a non-empty list of schemas`);
    else v.forEach((s, i) => out.push(...jsonSchemaProblems(s, `${path}.${key}[${i}]`)));
  }
  if (schema.enum !== undefined && (!Array.isArray(schema.enum) || schema.enum.length === 0)) out.push(`${path}.enum must be a non-empty list`);
  if (schema.description !== undefined && typeof schema.description !== "string") out.push(`${path}.description must be a string`);
  for (const key of NUMBER_KEYS) {
    if (schema[key] !== undefined && (typeof schema[key] !== "number" || !Number.isFinite(schema[key]))) out.push(`${path}.${key} must be a number`);
  }
  return out;
}
