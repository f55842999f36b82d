import { exceedsDepth } from "@context-engine/core";
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

/** Nesting deeper than this is refused with a message instead of exhausting the stack. */
export const MAX_YAML_DEPTH = 100;

export interface YamlLimits {
  /** Largest accepted file, in bytes (UTF-8). */
  maxBytes?: number;
  /** What the file is, for the size message ("config.yaml", "plugin.yaml"). */
  kind?: string;
}

export function parseYamlSource(text: string, file: string | null, limits: YamlLimits = {}): YamlSource {
  const lineCounter = new LineCounter();
  const failed = (message: string): YamlSource => ({
    file,
    value: null,
    problems: [{ file, line: 1, column: 1, key: "", message, severity: "error" }],
    positionOf: () => null,
  });
  const bytes = Buffer.byteLength(text, "utf8");
  if (limits.maxBytes !== undefined && bytes > limits.maxBytes) {
    return failed(`${limits.kind ?? "the file"} is ${formatBytes(bytes)}; the limit is ${formatBytes(limits.maxBytes)}`);
  }
  // A BOM must not become part of the first key.
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  // The parser's time grows faster than the nesting of flow collections: a file of brackets is refused by one scan first.
  const flow = flowNestingBeyond(source, MAX_YAML_DEPTH);
  if (flow !== null) {
    const line = source.slice(0, flow).split("\n").length;
    const message = `YAML is nested too deeply to read (more than ${MAX_YAML_DEPTH} levels of [ ] or { } at line ${line}; the limit is ${MAX_YAML_DEPTH} levels)`;
    return { ...failed(message), problems: [{ file, line, column: null, key: "", message, severity: "error" }] };
  }
  let doc: ReturnType<typeof parseDocument>;
  try {
    doc = parseDocument(source, { lineCounter, prettyErrors: true, uniqueKeys: true });
  } catch (error) {
    if (error instanceof RangeError || tooDeep(String(error))) return failed(`YAML is nested too deeply to read (the limit is ${MAX_YAML_DEPTH} levels)`);
    return failed(`YAML could not be read: ${error instanceof Error ? error.message : String(error)}`);
  }
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
        message: tooDeep(err.message)
          ? `YAML is nested too deeply to read (the limit is ${MAX_YAML_DEPTH} levels)`
          : `YAML ${severity === "error" ? "syntax error" : "warning"}: ${err.message.split("\n")[0]}`,
        severity,
      });
    }
  }
  let value: unknown = null;
  if (doc.errors.length === 0) {
    try {
      value = doc.toJS({ maxAliasCount: 100 });
      if (exceedsDepth(value, MAX_YAML_DEPTH)) {
        value = null;
        problems.push({ file, line: 1, column: 1, key: "", message: `YAML is nested more than ${MAX_YAML_DEPTH} levels deep`, severity: "error" });
      }
    } catch (error) {
      const message =
        error instanceof RangeError
          ? `YAML is nested too deeply to read (the limit is ${MAX_YAML_DEPTH} levels)`
          : `YAML could not be read: ${error instanceof Error ? error.message : String(error)}`;
      problems.push({ file, line: 1, column: 1, key: "", message, severity: "error" });
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

/**
 * Where flow collections (`[`, `{`) first nest deeper than `limit`, or null: one linear scan that skips
 * quoted strings and comments. Brackets inside plain scalars count too, so it may refuse a file with
 * more than `limit` unclosed brackets in its text, which no config has.
 */
export function flowNestingBeyond(text: string, limit: number): number | null {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return i;
    } else if (c === 0x5d || c === 0x7d) {
      if (depth > 0) depth--;
    } else if ((c === 0x22 || c === 0x27) && i > 0 && !/[\s[{,:]/.test(text[i - 1]!)) {
      // A quote inside a plain scalar (`it's`) opens nothing.
    } else if (c === 0x22) {
      // "…" with backslash escapes
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x27) {
      // '…' ('' is a quote inside)
      for (i++; i < text.length; i++) {
        if (text.charCodeAt(i) === 0x27) {
          if (text.charCodeAt(i + 1) === 0x27) i++;
          else break;
        }
      }
    } else if (c === 0x23 && (i === 0 || /\s/.test(text[i - 1]!))) {
      while (i < text.length && text.charCodeAt(i) !== 0x0a) i++;
    }
  }
  return null;
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

function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} bytes`;
}

// The parser reports exhausting the stack as an ordinary error.
function tooDeep(message: string): boolean {
  return /maximum call stack/i.test(message);
}
