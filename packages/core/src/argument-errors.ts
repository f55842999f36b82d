import { closestName } from "./closest-name.js";
import type { z } from "zod";

/**
 * Tool-argument errors in plain words, for the model that made the call: what
 * the tool expects (type, range, choices and the property's own description
 * from the tool's JSON schema) and what it got, one sentence per problem, e.g.
 * "lcm_grep needs `query`: words or a question (a string); it was missing."
 */

/** The JSON Schema of a tool's parameters (a ToolSchema's `parameters`); read structurally. */
export type ParametersSchema = Readonly<Record<string, unknown>>;

/** The parts of a JSON Schema read here. */
interface PropertySchema {
  properties?: Record<string, PropertySchema>;
  required?: readonly string[];
  type?: unknown;
  description?: unknown;
  enum?: readonly unknown[];
  oneOf?: readonly PropertySchema[];
  anyOf?: readonly PropertySchema[];
  items?: PropertySchema;
  minimum?: unknown;
  maximum?: unknown;
  minLength?: unknown;
  maxLength?: unknown;
  [key: string]: unknown;
}

/** The parts of a zod issue read here (structural: an engine may bring its own copy of zod). */
interface IssueLike {
  code?: string;
  path: readonly PropertyKey[];
  message: string;
  expected?: unknown;
  keys?: readonly string[];
  values?: readonly unknown[];
  minimum?: unknown;
  maximum?: unknown;
  inclusive?: boolean;
  origin?: string;
  format?: string;
}

/**
 * Describe why `input` failed `tool`'s argument schema, in plain words. `parameters` (the tool's JSON
 * schema, as the model saw it) adds each property's description and the accepted keys.
 */
export function describeArgumentProblems(tool: string, error: Pick<z.ZodError, "issues">, input: unknown, parameters?: ParametersSchema): string {
  const sentences: string[] = [];
  for (const issue of error.issues as readonly IssueLike[]) {
    const sentence = sentenceFor(tool, issue, input, parameters as PropertySchema | undefined);
    if (!sentences.includes(sentence)) sentences.push(sentence);
  }
  return sentences.join(" ");
}

function sentenceFor(tool: string, issue: IssueLike, input: unknown, parameters: PropertySchema | undefined): string {
  const path = issue.path ?? [];
  if (issue.code === "unrecognized_keys" && issue.keys) return unknownKeys(tool, issue.keys, acceptedKeys(parameters, path));
  if (path.length === 0) return `${tool} takes an object of named arguments (${argumentList(parameters)}); it got ${describeValue(input)}.`;
  const name = `\`${formatPath(path)}\``;
  const value = valueAt(input, path);
  const property = propertyAt(parameters, path);
  if (value === undefined && (issue.code === "invalid_type" || issue.code === "invalid_union")) {
    return `${tool} needs ${name}: ${whatItTakes(property, issue)}; it was missing.`;
  }
  return `${tool}: ${name} must be ${expectation(issue, property)}; it was ${describeValue(value)}.`;
}

/** "<description> (a string)", or only the type when the schema has no description. */
function whatItTakes(property: PropertySchema | undefined, issue: IssueLike): string {
  const type = property ? typeWords(property) : expectedType(issue.expected);
  const description = typeof property?.description === "string" ? plain(property.description) : "";
  return description ? `${description} (${type})` : type;
}

function expectation(issue: IssueLike, property: PropertySchema | undefined): string {
  switch (issue.code) {
    case "invalid_value":
      return issue.values ? oneOf(issue.values) : plainMessage(issue.message);
    case "too_small":
    case "too_big":
      if (property && hasBounds(property)) return typeWords(property);
      return isZodDefault(issue.message) ? boundWords(issue) : issue.message;
    case "invalid_type":
    case "invalid_union":
      return property ? typeWords(property) : expectedType(issue.expected);
    case "invalid_format":
      return issue.format ? `a valid ${issue.format}` : plainMessage(issue.message);
    default:
      // A refinement's own message says what it wants ("an ISO 8601 date ...").
      return plainMessage(issue.message);
  }
}

/** Plain words for a JSON-schema property: "a whole number from 1 to 50", "a list of …", "a string or a whole number". */
function typeWords(property: PropertySchema): string {
  const alternatives = property.oneOf ?? property.anyOf;
  if (alternatives?.length) return alternatives.map(typeWords).join(" or ");
  if (property.enum?.length) return oneOf(property.enum);
  const type = Array.isArray(property.type) ? property.type.map(String) : [String(property.type ?? "")];
  const words = type.map((t) => baseType(t, property)).join(" or ");
  const range = rangeOf(property);
  return range ? `${words} ${range}` : words;
}

function baseType(type: string, property: PropertySchema): string {
  switch (type) {
    case "string":
      return "a string";
    case "integer":
      return "a whole number";
    case "number":
      return "a number";
    case "boolean":
      return "true or false";
    case "null":
      return "null";
    case "object":
      return "an object";
    case "array":
      return property.items ? `a list of ${plural(typeWords(property.items))}` : "a list";
    default:
      return "a value";
  }
}

/** "from 1 to 50", "at least 1", "of 1 to 500 characters"; "" when the property has no bounds. */
function rangeOf(property: PropertySchema): string {
  if (property.type === "string") {
    const [low, high] = [property.minLength, property.maxLength];
    if (typeof low === "number" && typeof high === "number") return `of ${low} to ${high} characters`;
    if (typeof low === "number") return low === 1 ? "that is not empty" : `of at least ${low} characters`;
    return typeof high === "number" ? `of at most ${high} characters` : "";
  }
  const [low, high] = [property.minimum, property.maximum];
  if (typeof low === "number" && typeof high === "number") return `from ${low} to ${high}`;
  if (typeof low === "number") return `of at least ${low}`;
  return typeof high === "number" ? `of at most ${high}` : "";
}

/** Whether the JSON schema states the bounds itself (else the zod issue's bound is quoted). */
function hasBounds(property: PropertySchema): boolean {
  return rangeOf(property) !== "" || (property.oneOf ?? property.anyOf ?? []).some(hasBounds);
}

function boundWords(issue: IssueLike): string {
  const small = issue.code === "too_small";
  const limit = small ? issue.minimum : issue.maximum;
  const word = small ? (issue.inclusive === false ? "more than" : "at least") : issue.inclusive === false ? "less than" : "at most";
  const unit = (noun: string) => `${noun}${limit === 1 ? "" : "s"}`;
  if (issue.origin === "string") return small && limit === 1 ? "a string that is not empty" : `a string of ${word} ${String(limit)} ${unit("character")}`;
  if (issue.origin === "array") return `a list of ${word} ${String(limit)} ${unit("item")}`;
  return `${issue.origin === "int" ? "a whole number" : "a number"} ${word} ${String(limit)}`;
}

function expectedType(expected: unknown): string {
  if (typeof expected !== "string") return "a value";
  if (expected === "int") return "a whole number";
  if (expected === "boolean") return "true or false";
  if (expected === "array") return "a list";
  if (expected === "nonoptional") return "a value";
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function oneOf(values: readonly unknown[]): string {
  const shown = values.map((v) => JSON.stringify(v));
  return shown.length === 1 ? shown[0]! : `one of ${shown.slice(0, -1).join(", ")} or ${shown.at(-1)}`;
}

function plural(words: string): string {
  return words.replace(/^an? (\w+)/, (_, noun: string) => `${noun}s`).replace(/^one of /, "");
}

function unknownKeys(tool: string, keys: readonly string[], accepted: readonly string[]): string {
  const parts = keys.map((key) => {
    const close = closestName(key, accepted);
    return `\`${key}\`${close ? ` (did you mean \`${close}\`?)` : ""}`;
  });
  const takes = accepted.length ? `; it takes ${accepted.map((k) => `\`${k}\``).join(", ")}` : "";
  return `${tool} has no argument ${parts.join(", ")}${takes}.`;
}

function argumentList(parameters: PropertySchema | undefined): string {
  const properties = Object.keys(parameters?.properties ?? {});
  if (!properties.length) return "see the tool's schema";
  const required = new Set(parameters?.required ?? []);
  return properties.map((k) => (required.has(k) ? `\`${k}\` (required)` : `\`${k}\``)).join(", ");
}

/** Keys the object at `path` accepts: from the JSON schema, else none known. */
function acceptedKeys(parameters: PropertySchema | undefined, path: readonly PropertyKey[]): string[] {
  return Object.keys(propertyAt(parameters, path)?.properties ?? {});
}

function propertyAt(parameters: PropertySchema | undefined, path: readonly PropertyKey[]): PropertySchema | undefined {
  let node = parameters;
  for (const part of path) {
    if (!node) return undefined;
    node = typeof part === "number" ? node.items : node.properties?.[String(part)];
  }
  return node;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let node = input;
  for (const part of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<PropertyKey, unknown>)[part as string];
  }
  return node;
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i ? "." : ""}${String(p)}`)).join("");
}

/** What the model sent, briefly: `"fuzzy"`, 0, null, a list of 3 items, an object, an empty string. */
function describeValue(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (typeof value === "string") {
    if (value === "") return "an empty string";
    const shown = value.length > 40 ? `${JSON.stringify(value.slice(0, 40))}… (${value.length} characters)` : JSON.stringify(value);
    return shown;
  }
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return value.length === 0 ? "an empty list" : `a list of ${value.length} item${value.length === 1 ? "" : "s"}`;
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}

/** A schema description as a phrase: first letter lower-cased, no closing full stop. */
function plain(description: string): string {
  const text = description.trim().replace(/\.$/, "");
  // "A summary id" → "a summary id"; "RE2 syntax" and "ISO dates" stay.
  return /^[A-Z](?![A-Z0-9])/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text;
}

/** zod's own wording ("Too small: …", "Invalid input: …"), as opposed to a schema author's message. */
function isZodDefault(message: string): boolean {
  return /^(Too (small|big)|Invalid|Expected|Unrecognized)/.test(message);
}

function plainMessage(message: string): string {
  return message.replace(/^Invalid input: /, "");
}

