import type { ConfigProblem } from "./problems.js";
import { ContextEngineConfigSchema, type ContextEngineConfig } from "./schema.js";

/**
 * The valid part of a config that failed validation: every top-level section
 * that passes on its own, defaults for the rest. `config check` runs the
 * engine checks on it, so a bad `compression` block does not hide an unknown
 * `context.engine`. Null when the value is not a mapping or nothing combines.
 */
export function salvageConfig(value: unknown): ContextEngineConfig | null {
  if (!value || typeof value !== "object" || Array.isArray(value)) return null;
  const kept: Record<string, unknown> = {};
  for (const [key, section] of Object.entries(value)) {
    if (ContextEngineConfigSchema.safeParse({ [key]: section }).success) kept[key] = section;
  }
  const combined = ContextEngineConfigSchema.safeParse(kept);
  return combined.success ? combined.data : null;
}

/** Top-level sections that already have an error: engine checks on their defaults would only repeat it. */
export function sectionsWithErrors(problems: readonly ConfigProblem[]): Set<string> {
  return new Set(problems.filter((p) => p.severity === "error").map((p) => p.key.split(/[.[]/)[0] ?? ""));
}

/** File order: by line, then column; problems without a position (unreadable file) first. */
export function sortProblems(problems: readonly ConfigProblem[]): ConfigProblem[] {
  return problems
    .map((problem, i) => ({ problem, i }))
    .sort((a, b) => (a.problem.line ?? 0) - (b.problem.line ?? 0) || (a.problem.column ?? 0) - (b.problem.column ?? 0) || a.i - b.i)
    .map((x) => x.problem);
}
