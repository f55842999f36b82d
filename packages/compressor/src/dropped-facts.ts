import type { Message } from "@context-engine/core";
import { toolCallsOf } from "@context-engine/core";
import type { FactKind, FoundFact } from "./fact-patterns.js";
import { commandLine, errorLines, numbersIn, pathsIn } from "./fact-patterns.js";
import { isSummaryMessage } from "./markers.js";
import { redactSecrets } from "./redact.js";
import { renderContent } from "./serialize.js";

/**
 * The exact facts of the turns a compaction drops: the compressor has no
 * tools, so whatever its summary does not say verbatim is gone for the model.
 * What counts as a fact is defined in `fact-patterns.ts`; this file collects
 * them (newest first, counting how often each recurs) and packs the section.
 */
export const FACTS_HEADING = "## Exact Facts of the Compacted Turns (verbatim, newest first)";

export { commandLine } from "./fact-patterns.js";
export type DroppedFactKind = FactKind;
const KINDS: readonly FactKind[] = ["command", "error", "path", "number"];
const LABEL: Record<FactKind, string> = { command: "Commands run", error: "Error lines", path: "Paths", number: "Numbers" };

/** Long outputs say most at their start and end; scanning them whole would cost time for little. */
const SCAN_HEAD = 60_000;
const SCAN_TAIL = 20_000;

export interface Candidate {
  text: string;
  /** Lower packs first (see `FoundFact`). */
  tier: number;
  /** Position in newest-first order of first sight (0 = newest). */
  order: number;
  /** How many times the dropped turns state it. */
  refs: number;
}

/** Candidates per kind, in packing order (see `collectDroppedFacts`). */
export type DroppedFacts = Record<FactKind, string[]>;
export type RankedFacts = Record<FactKind, Candidate[]>;

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

function scanned(text: string): string {
  return text.length > SCAN_HEAD + SCAN_TAIL ? `${text.slice(0, SCAN_HEAD)}\n${text.slice(-SCAN_TAIL)}` : text;
}

/** Tool results, and user messages that carry tool output (agents that return observations as user turns). */
function carriesOutput(m: Message): boolean {
  return m.role === "tool" || m.role === "user";
}

type MessageFacts = ReadonlyArray<readonly [FactKind, FoundFact]>;

/**
 * What one message states, in the order it is read: found once per message object, and once per text for
 * messages without tool calls (hosts hand engines deep copies, which share their strings), so a compaction reads
 * only the turns that arrived since the last one. Facts depend on the role and the text alone (the redaction rules
 * are core's defaults), so the text cache is shared by every compressor in the process; it keeps the texts alive,
 * so it is bounded by their total length and starts over when full.
 */
const factsByMessage = new WeakMap<Message, MessageFacts>();
const factsByText = new Map<string, Map<string, MessageFacts>>();
let textChars = 0;
const MAX_TEXT_CHARS = 16_000_000;

function factsOf(m: Message): MessageFacts {
  const known = factsByMessage.get(m);
  if (known) return known;
  const plain = typeof m.content === "string" && toolCallsOf(m).length === 0 ? m.content : null;
  const byRole = plain === null ? undefined : factsByText.get(m.role);
  const cached = plain === null ? undefined : byRole?.get(plain);
  const facts = cached ?? findFacts(m);
  factsByMessage.set(m, facts);
  if (plain !== null && !cached) {
    if (textChars + plain.length > MAX_TEXT_CHARS) {
      factsByText.clear();
      textChars = 0;
    }
    let map = factsByText.get(m.role);
    if (!map) factsByText.set(m.role, (map = new Map()));
    map.set(plain, facts);
    textChars += plain.length;
  }
  return facts;
}

function findFacts(m: Message): MessageFacts {
  const out: Array<readonly [FactKind, FoundFact]> = [];
  // Redacted before anything is lifted out: a secret taken out of its context ("key=…") is no longer recognisable.
  const text = scanned(redactedText(m));
  for (const call of toolCallsOf(m).slice().reverse()) {
    const args = redactedArguments(call);
    out.push(["command", { text: commandLine(call.function.name, args), tier: 0 }]);
    for (const p of pathsIn(args)) out.push(["path", p]);
  }
  if (carriesOutput(m)) for (const e of errorLines(text).reverse()) out.push(["error", e]);
  for (const p of pathsIn(text)) out.push(["path", p]);
  for (const n of numbersIn(text)) out.push(["number", n]);
  return out;
}

/**
 * Facts of `turns` per kind, ranked: tier first, then newest and most
 * referenced (a fact stated n times ranks as if it were n times newer), each
 * once. Summaries themselves are skipped (their facts were packed before).
 */
export function rankDroppedFacts(turns: readonly Message[]): RankedFacts {
  const byKey = new Map<string, Candidate & { kind: FactKind }>();
  let order = 0;
  const add = (kind: FactKind, found: FoundFact) => {
    const text = found.text.trim();
    if (text.length < 3) return;
    const key = `${kind}\u0000${text}`;
    const seen = byKey.get(key);
    if (seen) {
      seen.refs++;
      if (found.tier < seen.tier) seen.tier = found.tier;
      return;
    }
    byKey.set(key, { kind, text, tier: found.tier, order: order++, refs: 1 });
  };
  for (let i = turns.length - 1; i >= 0; i--) {
    const m = turns[i]!;
    if (isSummaryMessage(m)) continue;
    for (const [kind, found] of factsOf(m)) add(kind, found);
  }
  const ranked: RankedFacts = { command: [], error: [], path: [], number: [] };
  for (const c of byKey.values()) ranked[c.kind].push(c);
  const weight = (c: Candidate) => c.order / c.refs;
  for (const kind of KINDS) ranked[kind].sort((a, b) => a.tier - b.tier || weight(a) - weight(b) || a.order - b.order);
  return ranked;
}

/** The ranked facts as plain lists (packing order). */
export function collectDroppedFacts(turns: readonly Message[]): DroppedFacts {
  const ranked = rankDroppedFacts(turns);
  return { command: ranked.command.map((c) => c.text), error: ranked.error.map((c) => c.text), path: ranked.path.map((c) => c.text), number: ranked.number.map((c) => c.text) };
}

/** `text` occurs in `haystack` not as part of a longer word or number (so `120` is not found in `1203`). */
export function statedIn(haystack: string, text: string): boolean {
  for (let at = haystack.indexOf(text); at >= 0; at = haystack.indexOf(text, at + 1)) {
    const before = haystack[at - 1];
    const after = haystack[at + text.length];
    if (!(before && /[\w.]/.test(before) && /^[\w.]/.test(text)) && !(after && /[\w]/.test(after) && /[\w]$/.test(text))) return true;
  }
  return false;
}

/** `key=12`, `line 42`: the key with its separator, and the value; null for a number stated alone (`405`, `3.2s`). */
const KEYED_NUMBER = /^([A-Za-z_][\w.-]*[A-Za-z_](?:[ \t]*[=:][ \t]*|[ \t]+))(\S.*)$/;

/**
 * The numbers row: values under the same key share it (`line 42, 57, 80`),
 * so a key that recurs is written once; the first of each key reads verbatim.
 */
class NumberRow {
  readonly #groups = new Map<string, string[]>();
  /** Characters `text` adds to the row. */
  cost(text: string): number {
    const keyed = KEYED_NUMBER.exec(text);
    return (keyed && this.#groups.has(keyed[1]!) ? keyed[2]!.length : text.length) + 2;
  }
  add(text: string): void {
    const keyed = KEYED_NUMBER.exec(text);
    const key = keyed ? keyed[1]! : `\u0000${text}`;
    const group = this.#groups.get(key);
    if (group) group.push(keyed ? keyed[2]! : text);
    else this.#groups.set(key, [text]);
  }
  get size(): number {
    return this.#groups.size;
  }
  render(): string {
    return [...this.#groups.values()].map((values) => values.join(", ")).join("; ");
  }
}

/**
 * The facts section within `budgetChars`: kinds take turns adding their next
 * fact (in ranking order) until nothing more fits, so no kind starves. A fact
 * `known` says is stated elsewhere (the kept messages, a model summary) or
 * that a fact already chosen contains is left out: each fact is said once.
 * Empty when there is nothing to say.
 */
export function renderDroppedFacts(facts: DroppedFacts, budgetChars: number, known: (text: string) => boolean = () => false): string {
  const chosen: DroppedFacts = { command: [], error: [], path: [], number: [] };
  const numbers = new NumberRow();
  const next: Record<FactKind, number> = { command: 0, error: 0, path: 0, number: 0 };
  const cost = (kind: FactKind, t: string) => (kind === "number" ? numbers.cost(t) : t.length + (kind === "path" ? 2 : 3));
  let said = "";
  const saidTokens = new Set<string>();
  // A one-word fact inside a chosen one is one of its tokens; a phrase (`line 42`) is searched.
  const inChosen = (t: string) => (/\s/.test(t) ? statedIn(said, t) : saidTokens.has(t));
  let used = FACTS_HEADING.length + 1;
  for (let progress = true; progress; ) {
    progress = false;
    for (const kind of KINDS) {
      const list = facts[kind];
      while (next[kind] < list.length) {
        const t = list[next[kind]++]!;
        // Size first: the look-ups cost far more than the arithmetic, and most candidates of a long middle do not fit.
        const c = cost(kind, t) + (chosen[kind].length === 0 ? LABEL[kind].length + 3 : 0);
        // Containment in chosen facts matters for one-line facts (a path or number inside a chosen error line or command).
        if (used + c > budgetChars || known(t) || ((kind === "path" || kind === "number") && inChosen(t))) continue;
        chosen[kind].push(t);
        if (kind === "number") numbers.add(t);
        said += `\n${t}`;
        for (const token of t.split(TOKEN_SPLIT)) if (token) saidTokens.add(token.replace(/[.:!?]+$/, ""));
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
    if (kind === "number") parts.push(`${LABEL[kind]}: ${numbers.render()}`);
    else parts.push(kind === "path" ? `${LABEL[kind]}: ${items.join(", ")}` : `${LABEL[kind]}:\n${items.map((t) => `- ${t}`).join("\n")}`);
  }
  return parts.length ? redactSecrets(`${FACTS_HEADING}\n${parts.join("\n")}`) : "";
}

/** Splits text into the tokens a one-word fact (a path, a number) is compared with. */
const TOKEN_SPLIT = /[\s"'`(),;[\]{}<>]+/;
let lastLookup: { text: string; has: (t: string) => boolean } | null = null;

/**
 * "Does `text` state this fact?" for many facts against one large text (the
 * kept messages): a one-word fact is looked up among its tokens (also with a
 * trailing `.`/`:` or `:line` off), a line-long one (an error line, a command)
 * among its trimmed lines, and only a short phrase (`line 42`) searched. A
 * substring that is only part of a token (`a/b.py` inside `x/a/b.py`) does not count.
 */
export function statedInText(text: string): (t: string) => boolean {
  if (lastLookup?.text === text) return lastLookup.has;
  const tokens = new Set<string>();
  for (const raw of text.split(TOKEN_SPLIT)) {
    if (!raw) continue;
    tokens.add(raw);
    const bare = raw.replace(/[.:!?]+$/, "");
    tokens.add(bare);
    tokens.add(bare.replace(/(:\d+)+$/, ""));
  }
  const lines = new Set(text.split("\n").map((l) => l.trim()));
  const has = (t: string) => (/\s/.test(t) ? lines.has(t) || (t.length <= SHORT_PHRASE && text.includes(t)) : tokens.has(t));
  lastLookup = { text, has };
  return has;
}

/** Longest fact searched for as a substring; longer ones are whole lines or not stated. */
const SHORT_PHRASE = 40;
