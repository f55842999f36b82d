import type { Message } from "@context-engine/core";
import { contentText, toolCallsOf } from "@context-engine/core";

export const FACT_KINDS = ["path", "command", "error", "number"] as const;
export type FactKind = (typeof FACT_KINDS)[number];

export interface Fact {
  kind: FactKind;
  text: string;
}

const PATH = /(?:[\w.-]*\/)+[\w.-]*[\w-]\.[A-Za-z]{1,5}\b|(?:[\w-]+\/){2,}[\w.-]+/g;
const NUMBER = /(?<![\w.])\d+(?:\.\d+)+(?![\w.])|(?<![\w.])\d{3,}(?![\w.])/g;
const ERROR_LINE = /\b(?:\w*Error|\w*Exception|Traceback|FAILED|FAIL:|fatal|error:|E {2,})\b/;

/** The command a tool call ran: the first line of its shell `command`/`cmd` argument, else the call as `name args…`. */
export function commandOf(name: string, args: string): string {
  let value: unknown;
  try {
    value = JSON.parse(args);
  } catch {
    return `${name} ${args}`.split("\n")[0]!.trim().slice(0, 200);
  }
  const obj = typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  const cmd = typeof obj.command === "string" ? obj.command : typeof obj.cmd === "string" ? obj.cmd : null;
  // A one-word `command` is an editor sub-command (view, create…): name the call by all its string arguments.
  const line = cmd !== null && /\s/.test(cmd.trim()) ? cmd.trim() : `${name} ${Object.values(obj).filter((v) => typeof v === "string").join(" ")}`;
  return line.split("\n")[0]!.trim().slice(0, 200);
}

/**
 * Facts of a region of messages, deduplicated per kind:
 * - path: a relative or absolute file path (`a/b.py`, `/x/y/z`) anywhere;
 * - command: the first line (≤ 200 chars) of every tool call's command;
 * - error: a tool-result line naming an error, exception, traceback or failure (trimmed, 8–200 chars);
 * - number: a number of three or more digits, or a dotted number (`3.2.1`, `0.75`).
 */
export function extractFacts(messages: readonly Message[]): Fact[] {
  const seen = new Set<string>();
  const out: Fact[] = [];
  const add = (kind: FactKind, text: string) => {
    const key = `${kind}\u0000${text}`;
    if (text.length < 3 || seen.has(key)) return;
    seen.add(key);
    out.push({ kind, text });
  };
  for (const m of messages) {
    const text = contentText(m.content);
    for (const call of toolCallsOf(m)) {
      const command = commandOf(call.function.name, call.function.arguments);
      if (command.length >= 3) add("command", command);
      for (const p of call.function.arguments.matchAll(PATH)) add("path", p[0]);
    }
    for (const p of text.matchAll(PATH)) add("path", p[0]);
    for (const n of text.matchAll(NUMBER)) add("number", n[0]);
    if (m.role === "tool" || m.role === "user") {
      for (const raw of text.split("\n")) {
        const line = raw.trim();
        if (line.length >= 8 && line.length <= 200 && ERROR_LINE.test(line)) add("error", line);
      }
    }
  }
  return out;
}
