import type { Message } from "@context-engine/core";
import { toolCallsOf } from "@context-engine/core";
import { isSummaryMessage } from "./markers.js";
import { redactSecrets } from "./redact.js";
import { renderContent } from "./serialize.js";

/**
 * The exact facts of the turns a compaction drops: the compressor has no
 * tools, so whatever its summary does not say verbatim is gone for the model.
 * Four kinds are kept, each as the text itself (never reworded): the commands
 * that were run, the error lines that came back, the file paths and the
 * numbers (versions, line numbers, ids, sizes). The section shares its budget
 * among the kinds, newest first, so a flood of one kind cannot crowd out another.
 */
export const FACTS_HEADING = "## Exact Facts of the Compacted Turns (verbatim, newest first)";

export type DroppedFactKind = "command" | "error" | "path" | "number";
const KINDS: readonly DroppedFactKind[] = ["command", "error", "path", "number"];
const LABEL: Record<DroppedFactKind, string> = { command: "Commands run", error: "Error lines", path: "Paths", number: "Numbers" };

const PATH = /(?:[\w.-]*\/)+[\w.-]*[\w-]\.[A-Za-z]{1,5}\b|(?:[\w-]+\/){2,}[\w.-]+/g;
const NUMBER = /(?<![\w.])\d+(?:\.\d+)+(?![\w.])|(?<![\w.])\d{3,}(?![\w.])/g;
const ERROR = /\b(?:\w*Error|\w*Exception|Traceback|FAILED|FAIL:|fatal|error:|E {2,})\b/;
/** Long outputs say most at their start and end; scanning them whole would cost time for little. */
const SCAN_HEAD = 60_000;
const SCAN_TAIL = 20_000;

export type DroppedFacts = Record<DroppedFactKind, string[]>;

/**
 * A message's text and a call's arguments with secrets redacted, computed once
 * per object: the deterministic summary and the facts read the same turns, and
 * redaction is the costly part of both.
 */
const redactedTexts = new WeakMap<Message, string>();
const redactedArgs = new WeakMap<object, string>();

export function redactedText(m: Message): string {
  let text = redactedTexts.get(m);
  if (text === undefined) redactedTexts.set(m, (text = redactSecrets(renderContent(m.content))));
  return text;
}

export function redactedArguments(call: { function: { arguments: string } }): string {
  let args = redactedArgs.get(call);
  if (args === undefined) redactedArgs.set(call, (args = redactSecrets(call.function.arguments)));
  return args;
}

/** The first line of a shell command, or the call as `name arg…` (its string arguments) for other tools. */
export function commandLine(name: string, args: string): string {
  let value: unknown;
  try {
    value = JSON.parse(args);
  } catch {
    return `${name} ${args}`.split("\n")[0]!.trim().slice(0, 200);
  }
  const obj = typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  const cmd = typeof obj.command === "string" ? obj.command : typeof obj.cmd === "string" ? obj.cmd : null;
  const line = cmd !== null && /\s/.test(cmd.trim()) ? cmd.trim() : `${name} ${Object.values(obj).filter((v) => typeof v === "string").join(" ")}`;
  return line.split("\n")[0]!.trim().slice(0, 200);
}

/**
 * Paths of a text, matched per whitespace-separated token (a path holds no
 * space): the pattern backtracks over long runs of word characters, so tokens
 * without a slash or longer than any path (a base64 blob) are skipped.
 */
function* pathsIn(text: string): Generator<string> {
  for (const token of text.split(/\s+/)) {
    if (token.length > 300 || !token.includes("/")) continue;
    for (const m of token.matchAll(PATH)) yield m[0];
  }
}

function scanned(text: string): string {
  return text.length > SCAN_HEAD + SCAN_TAIL ? `${text.slice(0, SCAN_HEAD)}\n${text.slice(-SCAN_TAIL)}` : text;
}

/** Facts of `turns` per kind, each list newest first and without repeats (summaries themselves are skipped). */
export function collectDroppedFacts(turns: readonly Message[]): DroppedFacts {
  const lists: DroppedFacts = { command: [], error: [], path: [], number: [] };
  const seen = new Set<string>();
  const add = (kind: DroppedFactKind, raw: string) => {
    const text = raw.trim();
    const key = `${kind}\u0000${text}`;
    if (text.length < 3 || seen.has(key)) return;
    seen.add(key);
    lists[kind].push(text);
  };
  for (let i = turns.length - 1; i >= 0; i--) {
    const m = turns[i]!;
    if (isSummaryMessage(m)) continue;
    // Redacted before anything is lifted out: a secret taken out of its context ("key=…") is no longer recognisable.
    const text = scanned(redactedText(m));
    if (m.role === "tool" || m.role === "user") {
      const lines = text.split("\n");
      for (let j = lines.length - 1; j >= 0; j--) {
        const line = lines[j]!.trim();
        if (line.length >= 8 && line.length <= 200 && ERROR.test(line)) add("error", line);
      }
    }
    for (const p of pathsIn(text)) add("path", p);
    for (const n of text.matchAll(NUMBER)) add("number", n[0]);
    for (const call of toolCallsOf(m).slice().reverse()) {
      const args = redactedArguments(call);
      add("command", commandLine(call.function.name, args));
      for (const p of pathsIn(args)) add("path", p);
    }
  }
  return lists;
}

/**
 * The facts section within `budgetChars`: kinds take turns adding their next
 * newest fact until nothing more fits; facts `known` already holds are left out
 * (a model summary or an earlier section that states them). Empty when there is nothing to say.
 */
export function renderDroppedFacts(facts: DroppedFacts, budgetChars: number, known: (text: string) => boolean = () => false): string {
  const chosen: DroppedFacts = { command: [], error: [], path: [], number: [] };
  const next: Record<DroppedFactKind, number> = { command: 0, error: 0, path: 0, number: 0 };
  const cost = (kind: DroppedFactKind, t: string) => t.length + (kind === "command" || kind === "error" ? 3 : 2);
  let used = FACTS_HEADING.length + 1;
  for (let progress = true; progress; ) {
    progress = false;
    for (const kind of KINDS) {
      const list = facts[kind];
      while (next[kind] < list.length) {
        const t = list[next[kind]++]!;
        if (known(t)) continue;
        const c = cost(kind, t) + (chosen[kind].length === 0 ? LABEL[kind].length + 3 : 0);
        if (used + c > budgetChars) break;
        chosen[kind].push(t);
        used += c;
        progress = true;
        break;
      }
    }
  }
  const parts: string[] = [];
  for (const kind of KINDS) {
    const items = chosen[kind];
    if (!items.length) continue;
    // Commands and error lines one per line (they hold commas and spaces); paths and numbers in a row.
    parts.push(kind === "command" || kind === "error" ? `${LABEL[kind]}:\n${items.map((t) => `- ${t}`).join("\n")}` : `${LABEL[kind]}: ${items.join(", ")}`);
  }
  return parts.length ? redactSecrets(`${FACTS_HEADING}\n${parts.join("\n")}`) : "";
}
