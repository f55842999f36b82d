/** One problem in a config or plugin file, positioned for an editor jump. */
export interface ConfigProblem {
  /** The file, or null for a config given as an object. */
  file: string | null;
  /** 1-based; null when the position is unknown (e.g. a missing file). */
  line: number | null;
  column: number | null;
  /** Dotted key path, e.g. `compression.threshold`; "" for the whole file. */
  key: string;
  /** What is wrong, in one sentence. */
  message: string;
  /** What was expected at that key, when it can be said. */
  expected?: string;
  /** Errors make the config unusable; warnings (e.g. config for an engine that is not installed) do not. */
  severity: "error" | "warning";
}

/** `file:line:col: key: message (expected …)` — the shape editors and terminals link. */
export function formatConfigProblem(problem: ConfigProblem): string {
  let where = problem.file ?? "<config>";
  if (problem.line !== null) where += `:${problem.line}`;
  if (problem.line !== null && problem.column !== null) where += `:${problem.column}`;
  const key = problem.key ? ` ${problem.key}:` : "";
  const expected = problem.expected && !/\bexpected\b/.test(problem.message) ? ` (expected ${problem.expected})` : "";
  const level = problem.severity === "warning" ? " warning:" : "";
  return `${where}:${level}${key} ${problem.message}${expected}`;
}

/** Dotted path for display: `engines.lcm.fresh_tail_count`, `plugins.modules[1]`. */
export function formatKeyPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}
