import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument } from "yaml";
import type { Document, Node, Pair } from "yaml";
import type { ConfigProblem } from "./problems.js";

/** A parsed YAML file that can say where any key path sits. */
export interface YamlSource {
  file: string | null;
  /** The plain value (`null` for an empty file). */
  value: unknown;
  /** Syntax errors (and duplicate keys), already positioned. */
  problems: ConfigProblem[];
  /**
   * Position of the value at `path`, or of its key when `atKey` is set.
   * Missing paths resolve to the nearest existing ancestor.
   */
  positionOf(path: readonly PropertyKey[], atKey?: boolean): { line: number; column: number } | null;
}

export function parseYamlSource(text: string, file: string | null): YamlSource {
  const lineCounter = new LineCounter();
  // A BOM must not become part of the first key.
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const doc = parseDocument(source, { lineCounter, prettyErrors: true, uniqueKeys: true });
  const problems: ConfigProblem[] = [];
  for (const [list, severity] of [
    [doc.errors, "error"],
    [doc.warnings, "warning"],
  ] as const) {
    for (const err of list) {
      const pos = err.linePos?.[0];
      problems.push({
        file,
        line: pos?.line ?? null,
        column: pos?.col ?? null,
        key: "",
        message: `YAML ${severity === "error" ? "syntax error" : "warning"}: ${err.message.split("\n")[0]}`,
        severity,
      });
    }
  }
  let value: unknown = null;
  if (doc.errors.length === 0) {
    try {
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (error) {
      problems.push({
        file,
        line: 1,
        column: 1,
        key: "",
        message: `YAML could not be read: ${error instanceof Error ? error.message : String(error)}`,
        severity: "error",
      });
    }
  }
  const positionOf = (path: readonly PropertyKey[], atKey = false) => {
    const offset = locate(doc, path, atKey);
    if (offset === null) return null;
    const pos = lineCounter.linePos(offset);
    return { line: pos.line, column: pos.col };
  };
  return { file, value, problems, positionOf };
}

function locate(doc: Document, path: readonly PropertyKey[], atKey: boolean): number | null {
  let node: unknown = doc.contents;
  let best: number | null = startOf(node);
  for (let i = 0; i < path.length; i++) {
    const part = path[i];
    const last = i === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((p: Pair) => keyText(p.key) === String(part));
      if (!pair) return best;
      if (last && atKey) return startOf(pair.key) ?? best;
      node = pair.value;
      best = startOf(pair.value) ?? startOf(pair.key) ?? best;
    } else if (isSeq(node) && typeof part === "number") {
      const item = node.items[part];
      if (item === undefined) return best;
      node = item;
      best = startOf(item) ?? best;
    } else {
      return best;
    }
  }
  return best;
}

function keyText(key: unknown): string | null {
  if (isScalar(key)) return String(key.value);
  if (typeof key === "string" || typeof key === "number") return String(key);
  return null;
}

function startOf(node: unknown): number | null {
  if (isPair(node)) return startOf(node.key);
  const range = (node as Node | null | undefined)?.range;
  return Array.isArray(range) ? range[0] : null;
}
