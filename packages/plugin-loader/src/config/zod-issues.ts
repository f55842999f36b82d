import { closestName } from "@context-engine/core";
import type { ConfigProblem } from "./problems.js";
import { formatKeyPath } from "./problems.js";
import type { YamlSource } from "./yaml-source.js";

/**
 * The parts of a zod issue we read. Typed structurally because a plugin's
 * `configSchema` may come from its own copy of zod.
 */
export interface IssueLike {
  code?: string;
  path: PropertyKey[];
  message: string;
  expected?: unknown;
  keys?: string[];
  values?: unknown[];
  minimum?: unknown;
  maximum?: unknown;
  inclusive?: boolean;
  format?: string;
  pattern?: string;
  origin?: string;
  input?: unknown;
  errors?: IssueLike[][];
}

/**
 * Turn zod issues into positioned problems. `prefix` is where the validated
 * value sits in the file (e.g. `["engines", "lcm"]` for a plugin's section).
 */
export function issuesToProblems(
  issues: readonly IssueLike[],
  source: Pick<YamlSource, "file" | "positionOf"> | null,
  prefix: readonly PropertyKey[] = [],
  hints: IssueHints = {},
): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...(issue.path ?? [])];
    const local = issue.path ?? [];
    if (issue.code === "unrecognized_keys" && Array.isArray(issue.keys)) {
      // One problem per key, each at the key's own line.
      for (const key of issue.keys) {
        const keyPath = [...path, key];
        const pos = source?.positionOf(keyPath, true) ?? null;
        out.push({
          file: source?.file ?? null,
          line: pos?.line ?? null,
          column: pos?.column ?? null,
          key: formatKeyPath(keyPath),
          message: unknownKeyMessage(key, hints.knownKeys?.(local)),
          expected: knownList(hints.knownKeys?.(local)),
          severity: "error",
        });
      }
      continue;
    }
    const pos = source?.positionOf(path) ?? null;
    out.push({
      file: source?.file ?? null,
      line: pos?.line ?? null,
      column: pos?.column ?? null,
      key: formatKeyPath(path),
      message: messageOf(issue, hints.root === undefined ? undefined : has(hints.root, local)),
      expected: expectedOf(issue),
      severity: "error",
    });
  }
  return out;
}

export interface IssueHints {
  /** The validated value, to tell a missing key from a wrong value. */
  root?: unknown;
  /** The keys allowed in the object at a (validated-value-relative) path, for unknown-key messages. */
  knownKeys?: (path: readonly PropertyKey[]) => readonly string[] | undefined;
}

function messageOf(issue: IssueLike, present: boolean | undefined): string {
  if (issue.code === "invalid_type" && present === false) return "required key is missing";
  return issue.message.replace(/^Invalid input: /, "");
}

function has(root: unknown, path: readonly PropertyKey[]): boolean {
  let node: unknown = root;
  for (const part of path) {
    if (node === null || typeof node !== "object" || !(String(part) in (node as object))) return false;
    node = (node as Record<string, unknown>)[String(part)];
  }
  return node !== undefined;
}

function unknownKeyMessage(key: string, known: readonly string[] | undefined): string {
  const close = known ? closestName(key, known) : null;
  return `unknown key "${key}"${close ? ` (did you mean "${close}"?)` : ""}`;
}

function knownList(known: readonly string[] | undefined): string {
  return known && known.length ? `one of ${known.join(", ")}` : "one of the documented keys";
}


function expectedOf(issue: IssueLike): string | undefined {
  switch (issue.code) {
    case "invalid_type":
      return typeof issue.expected === "string" ? article(issue.expected) : undefined;
    case "invalid_value":
      return Array.isArray(issue.values) ? `one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}` : undefined;
    case "too_small":
      return bound(issue, issue.inclusive === false ? "greater than" : "at least", issue.minimum);
    case "too_big":
      return bound(issue, issue.inclusive === false ? "less than" : "at most", issue.maximum);
    case "invalid_format":
      return issue.pattern ? `a string matching ${issue.pattern}` : issue.format ? `a valid ${issue.format}` : undefined;
    case "invalid_union":
      return "one of the accepted forms";
    default:
      return undefined;
  }
}

function bound(issue: IssueLike, word: string, limit: unknown): string {
  const what = issue.origin === "string" ? " characters" : issue.origin === "array" ? " items" : "";
  const prefix = issue.origin === "string" || issue.origin === "array" ? "length " : "";
  return `${prefix}${word} ${String(limit)}${what}`;
}

function article(type: string): string {
  if (type === "int") return "an integer";
  if (type === "nonoptional") return "a value";
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
