import type { Message } from "@context-engine/core";
import { toolCallsOf } from "@context-engine/core";
import { renderContent } from "./serialize.js";

/**
 * Harvesting the exact strings a continuation needs — paths, URLs, code
 * identifiers, ids, numbers — ranked by how often they recur (user messages
 * weigh most). Used by the extractive summary and to anchor model summaries.
 */

const PATH_RE =
  /(?:~|\.{1,2})?\/?(?:[\w.@-]+\/)+[\w.@-]+|\b[\w-]+\.(?:py|ts|tsx|js|jsx|mjs|cjs|json|md|ya?ml|toml|rs|go|java|kt|c|h|cc|cpp|hpp|rb|php|sh|txt|cfg|ini|lock|html|css|sql|ipynb|rst)\b/g;
const URL_RE = /https?:\/\/[^\s)"'<>\]`]+/g;
const IDENT_RE =
  /\b(?:[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]*)+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[A-Z0-9]*[A-Z][A-Z0-9]*[0-9][A-Z0-9]*|[0-9a-f]{7,40})\b/g;
const NUMBER_RE = /(?:[$€£#]\s?)?\b\d[\d,]*(?:\.\d+)+\b|[$€£#]\s?\d[\d,]*(?:\.\d+)?|\b\d{3,}\b|\b\d+(?:\.\d+)?\s?(?:%|ms|s|sec|min|h|KB|MB|GB|tokens?)\b/g;
export const SAMPLE_HEAD = 3_000;
export const SAMPLE_TAIL = 1_500;
const STOP_IDENTS = new Set(["e.g", "i.e", "etc.etc"]);

interface Tally {
  score: Map<string, number>;
  first: Map<string, number>;
  order: number;
}

export interface IdentifierHarvest {
  paths: Tally;
  idents: Tally;
  numbers: Tally;
}

export function newHarvest(): IdentifierHarvest {
  const tally = (): Tally => ({ score: new Map(), first: new Map(), order: 0 });
  return { paths: tally(), idents: tally(), numbers: tally() };
}

function collect(h: Tally, re: RegExp, text: string, weight: number, minLength = 3): void {
  re.lastIndex = 0;
  for (const match of text.matchAll(re)) {
    const token = match[0].replace(/[.,:;]+$/, "").trim();
    if (token.length < minLength || token.length > 200 || STOP_IDENTS.has(token)) continue;
    if (/^[\d.]+$/.test(token) && token.length < 3) continue;
    h.score.set(token, (h.score.get(token) ?? 0) + weight);
    if (!h.first.has(token)) h.first.set(token, h.order++);
  }
}

/** The start and end of a long text: huge outputs say most there. */
export function sampleOf(text: string): string {
  return text.length > SAMPLE_HEAD + SAMPLE_TAIL ? `${text.slice(0, SAMPLE_HEAD)}\n${text.slice(-SAMPLE_TAIL)}` : text;
}

export function harvestText(h: IdentifierHarvest, text: string, weight: number): void {
  collect(h.paths, PATH_RE, text, weight, 4);
  collect(h.paths, URL_RE, text, weight, 8);
  collect(h.idents, IDENT_RE, text, weight, 4);
  collect(h.numbers, NUMBER_RE, text, weight, 2);
}

/** Harvest one message: its (sampled) text and its tool-call arguments. */
export function harvestMessage(h: IdentifierHarvest, m: Message, sample: string): void {
  harvestText(h, sample, m.role === "user" ? 3 : m.role === "tool" ? 1 : 2);
  for (const call of toolCallsOf(m)) harvestText(h, call.function?.arguments ?? "", 2);
}

/** Index of the first message to scan so that the newest ones up to `budgetChars` are covered. */
export function harvestStart(turns: readonly Message[], budgetChars: number): number {
  let from = turns.length;
  for (let budget = budgetChars; from > 0 && budget > 0; ) {
    from--;
    const c = turns[from]!.content;
    budget -= Math.min(typeof c === "string" ? c.length : Array.isArray(c) ? 400 : 0, SAMPLE_HEAD + SAMPLE_TAIL);
  }
  return from;
}

/** Harvest the newest messages up to `budgetChars`. */
export function harvestTurns(turns: readonly Message[], budgetChars: number): IdentifierHarvest {
  const h = newHarvest();
  for (let i = harvestStart(turns, budgetChars); i < turns.length; i++) {
    const m = turns[i]!;
    harvestMessage(h, m, sampleOf(renderContent(m.content)));
  }
  return h;
}

export interface ChosenIdentifiers {
  path: string[];
  ident: string[];
  number: string[];
}

/**
 * The best-ranked strings within `charBudget`: paths first, then code
 * identifiers, then numbers at equal mentions. `carried` (from a previous
 * summary) count as mentioned twice; `skip` drops strings already present.
 */
export function chooseIdentifiers(h: IdentifierHarvest, carried: readonly string[], charBudget: number, skip?: (t: string) => boolean): ChosenIdentifiers {
  const isPath = (t: string) => t.includes("/") || /\.[A-Za-z]\w{0,5}$/.test(t);
  const isNumber = (t: string) => /^[$€£#]?\s?[\d,.]+\s?\S{0,6}$/.test(t) && /\d/.test(t);
  carried.forEach((t, i) => {
    const tally = isPath(t) ? h.paths : isNumber(t) ? h.numbers : h.idents;
    tally.score.set(t, (tally.score.get(t) ?? 0) + 2);
    if (!tally.first.has(t)) tally.first.set(t, i - carried.length);
  });
  const ranked: Array<[string, number, keyof ChosenIdentifiers]> = [];
  for (const [t, sc] of h.paths.score) ranked.push([t, sc * 1.5, "path"]);
  for (const [t, sc] of h.idents.score) ranked.push([t, sc * 1.2, "ident"]);
  for (const [t, sc] of h.numbers.score) ranked.push([t, sc, "number"]);
  ranked.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const chosen: ChosenIdentifiers = { path: [], ident: [], number: [] };
  const seen = new Set<string>();
  let used = 0;
  for (const [t, , kind] of ranked) {
    if (seen.has(t) || used + t.length + 4 > charBudget || skip?.(t)) continue;
    // An identifier that is part of a kept path adds nothing.
    if (kind === "ident" && chosen.path.some((p) => p.includes(t))) continue;
    seen.add(t);
    chosen[kind].push(t);
    used += t.length + 4;
  }
  const byFirst = (tally: Tally) => (a: string, b: string) => (tally.first.get(a) ?? 0) - (tally.first.get(b) ?? 0);
  chosen.path.sort(byFirst(h.paths));
  chosen.ident.sort(byFirst(h.idents));
  chosen.number.sort(byFirst(h.numbers));
  return chosen;
}

export function formatIdentifiers(chosen: ChosenIdentifiers): string[] {
  const tick = (t: string) => `\`${t.replace(/\`/g, "'")}\``;
  const lines: string[] = [];
  if (chosen.path.length) lines.push(`Paths/URLs: ${chosen.path.map(tick).join(", ")}`);
  if (chosen.ident.length) lines.push(`Identifiers: ${chosen.ident.map(tick).join(", ")}`);
  if (chosen.number.length) lines.push(`Numbers: ${chosen.number.map(tick).join(", ")}`);
  return lines;
}
