import { estimateTextTokens } from "@context-engine/core";
import { parseEntries, type SourceEntry } from "./fallback-entries.js";

/**
 * The deterministic last resort of the summary escalation. It never calls a
 * model and it always compresses: the result is bounded by `maxTokens` and by
 * half the source size, whatever the input. It is extractive (the rarest
 * words of each message, its commands and error lines, then the identifiers
 * found anywhere), with injection-shaped text removed so untrusted text is not
 * promoted into a permanent summary.
 */

const INJECTION =
  /\b(ignore (all |any )?(previous|prior|above) (instructions|messages)|disregard (the )?(previous|above)|you are now\b|act as (an? )?(unrestricted|jailbroken)|system prompt|developer mode|\bDAN\b)/i;

const IDENTIFIER =
  /(?:[A-Za-z0-9_.-]*\/[A-Za-z0-9_./-]+|\b[A-Za-z_][A-Za-z0-9_]*\.(?:py|ts|js|tsx|jsx|json|md|yaml|yml|go|rs|java|c|h|cpp|sql|sh|toml)\b|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b|\b[A-Z]+[0-9][A-Z0-9]*\b|\b\d[\d.,:-]{2,}\b|https?:\/\/\S+)/g;

export const FALLBACK_MARKER = "[LCM fallback summary: extracted without a model; expand for the full text]";

/** Lines that look like prompt injection are replaced, not copied. */
export function scrubInjection(line: string): string {
  return INJECTION.test(line) ? "[directive-shaped text omitted]" : line;
}

/** Trim text to at most `maxTokens` by the shared estimator (binary search on length). */
export function clampTokens(text: string, maxTokens: number): string {
  if (estimateTextTokens(text) <= maxTokens) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (estimateTextTokens(text.slice(0, mid)) + 1 <= maxTokens) lo = mid;
    else hi = mid - 1;
  }
  return `${text.slice(0, lo)}…`;
}

const STOP = new Set(
  ("a an the and or but if so of to in on at by for with from as into onto about over under than then that this these those it its " +
    "is are was were be been being am do does did done have has had having will would shall should can could may might must " +
    "i me my mine we us our you your he him his she her they them their there here what which who whom whose when where why how " +
    "not no yes just very really too also oh ok okay um uh well like yeah hey hi hello thanks thank please sure all any some such " +
    "much many more most own same other only again once each both few up down out off n").split(" "),
);

const wordKey = (w: string) => w.toLowerCase().replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "").replace(/['’](?:s|m|ve|re|ll|d|t)$/u, "");

interface Prepared {
  label: string;
  /** Sequence number of the source message, for range labels of grouped lines. */
  seq: string | null;
  /** Always kept: a leading `Name:` speaker tag. */
  lead: string;
  words: Array<{ text: string; key: string; rank: number }>;
  facts: string[];
}

/** Words of each entry ranked by how rare they are in this source (names, dates, numbers, identifiers first). */
function prepare(entries: readonly SourceEntry[]): Prepared[] {
  const split = entries.map((e) => {
    const prose = INJECTION.test(e.prose) ? "[directive-shaped text omitted]" : e.prose.replace(/\s+/g, " ").trim();
    const tokens = prose ? prose.split(" ") : [];
    const lead = tokens.length > 1 && /^[\p{Lu}][\p{L}\p{N}_.-]{0,30}:$/u.test(tokens[0]!) ? tokens.shift()! : "";
    // Function words stay (ranked last): with room the line reads as written; without, they go first.
    return { e, lead, tokens: tokens.filter((t) => wordKey(t) !== "") };
  });
  const df = new Map<string, number>();
  for (const s of split) for (const k of new Set(s.tokens.map(wordKey))) if (!STOP.has(k)) df.set(k, (df.get(k) ?? 0) + 1);
  return split.map(({ e, lead, tokens }) => {
    // Numbers and dates, then capitalised words inside a sentence (names, places), then the rarest.
    const salience = (t: string, i: number) => (STOP.has(wordKey(t)) ? 3 : /\p{N}/u.test(t) ? 0 : i > 0 && /^\p{Lu}/u.test(t) ? 1 : 2);
    const order = tokens
      .map((t, i) => ({ i, c: salience(t, i), d: df.get(wordKey(t)) ?? 0 }))
      .sort((a, b) => a.c - b.c || a.d - b.d || a.i - b.i);
    const rank = new Array<number>(tokens.length);
    order.forEach((o, r) => (rank[o.i] = r));
    // A speaker tag already says who spoke: the label keeps only the sequence number.
    return { label: lead ? e.label.replace(/ [a-z]+$/, "") : e.label, seq: /^#(\d+)/.exec(e.label)?.[1] ?? null, lead, words: tokens.map((t, i) => ({ text: t, key: wordKey(t), rank: rank[i]! })), facts: e.facts.map(scrubInjection) };
  });
}

/**
 * Each entry with its `keep` most telling words in their original order and
 * its facts on their own lines; `group` consecutive entries share one line
 * (`#4–#7 …`) when a line per entry does not fit. Empty entries are dropped.
 */
function render(entries: readonly Prepared[], keep: number, withFacts: boolean, group = 1): string[] {
  const lines: string[] = [];
  for (let i = 0; i < entries.length; i += group) {
    const chunk = entries.slice(i, i + group);
    const parts: string[] = [];
    const facts: string[] = [];
    for (const e of chunk) {
      const words = e.words.filter((w) => w.rank < keep).map((w) => w.text);
      if (words.length || (group === 1 && e.lead)) parts.push([e.lead, ...words].filter(Boolean).join(" "));
      if (withFacts) facts.push(...e.facts);
    }
    if (!parts.length && !facts.length) continue;
    lines.push([rangeLabel(chunk), parts.join(" · ")].filter(Boolean).join(" "), ...facts);
  }
  return lines;
}

function rangeLabel(chunk: readonly Prepared[]): string {
  if (chunk.length === 1) return chunk[0]!.label;
  const seqs = chunk.map((e) => e.seq).filter((x): x is string => x !== null);
  return seqs.length ? (seqs[0] === seqs[seqs.length - 1] ? `#${seqs[0]}` : `#${seqs[0]}–#${seqs[seqs.length - 1]}`) : "";
}

const isNoise = (line: string) => line === FALLBACK_MARKER || line.startsWith("Identifiers seen:") || /^\[… \d+ more entries omitted …\]$/.test(line);

/**
 * Distinct identifiers of the source: paths and file names first, then
 * CONSTANT names and URLs, then numbers; within a kind the most repeated first.
 */
function identifiers(source: string): string[] {
  const count = new Map<string, number>();
  for (const match of source.matchAll(IDENTIFIER)) {
    // `</tag>` is markup, not a path.
    if (source[match.index - 1] === "<") continue;
    // A piece of a longer token (`2026-12-` of `2026-12-04T15:27Z`) is no identifier.
    const next = source[match.index + match[0].length] ?? "";
    const prev = source[match.index - 1] ?? "";
    if (/^\d/.test(match[0]) && (/[A-Za-z0-9]/.test(next) || /[\d:.-]/.test(prev))) continue;
    const id = match[0].replace(/[.,:;)`'"]+$/, "");
    if (id.length >= 3) count.set(id, (count.get(id) ?? 0) + 1);
  }
  const kind = (id: string) => (/^\d/.test(id) ? 2 : /[/.]/.test(id) && !/^https?:/.test(id) ? 0 : 1);
  const first = [...count.keys()];
  const order = new Map(first.map((id, i) => [id, i]));
  return first.sort((a, b) => kind(a) - kind(b) || count.get(b)! - count.get(a)! || order.get(a)! - order.get(b)!);
}

/** Keep the head and the tail of the timeline when even the shortest form does not fit. */
function headAndTail(lines: readonly string[], lineBudget: number): string[] {
  const head: string[] = [];
  const tail: string[] = [];
  let used = 0;
  let i = 0;
  let j = lines.length - 1;
  while (i <= j) {
    const take = head.length <= tail.length ? lines[i]! : lines[j]!;
    const cost = estimateTextTokens(take) + 1;
    if (used + cost > lineBudget - 8) break;
    used += cost;
    if (head.length <= tail.length) head.push(lines[i++]!);
    else tail.unshift(lines[j--]!);
  }
  const omitted = lines.length - head.length - tail.length;
  return omitted > 0 ? [...head, `[… ${omitted} more entries omitted …]`, ...tail] : [...head, ...tail];
}

/**
 * The entries at the finest grain that fits `room`: one line per entry with as
 * many words as fit, else lines of 2, 4, 8… entries when that keeps more words;
 * facts are dropped only when even bare lines do not fit, and the timeline is
 * cut in the middle only as the last resort.
 */
function fitEntries(entries: readonly Prepared[], room: number): string[] {
  const fits = (lines: readonly string[]) => estimateTextTokens(lines.join("\n")) <= room;
  const maxWords = entries.reduce((m, e) => Math.max(m, e.words.length), 0);
  if (fits(render(entries, maxWords, true))) return render(entries, maxWords, true);
  const withFacts = fits(render(entries, 0, true, entries.length));
  let best: { lines: string[]; words: number } | null = null;
  for (let group = 1; group <= Math.max(1, entries.length); group *= 2) {
    let lo = 0;
    let hi = maxWords;
    if (!fits(render(entries, 0, withFacts, group))) continue;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (fits(render(entries, mid, withFacts, group))) lo = mid;
      else hi = mid - 1;
    }
    const words = entries.reduce((n, e) => n + Math.min(lo, e.words.length), 0);
    if (!best || words > best.words) best = { lines: render(entries, lo, withFacts, group), words };
    if (lo >= maxWords) break;
  }
  return best ? best.lines : headAndTail(render(entries, 0, false), room);
}

/**
 * Build the fallback summary of a rendered source (blocks separated by blank
 * lines, as `renderSourceMessages` or summary joining produce them).
 *
 * One line per source message, `#seq role` and its rarest words in order (a
 * speaker tag kept), so names, dates, numbers and identifiers survive while
 * function words go first; then the message's tool commands (`$ …`, first
 * line whole) and error lines (`! …`) verbatim. The words per message shrink
 * until everything fits; identifiers not yet shown follow on one line.
 * Summaries of summaries parse these lines back, so a condensed summary
 * keeps the same facts as long as they fit.
 */
export function deterministicSummary(source: string, sourceTokens: number, maxTokens: number): string {
  const budget = Math.max(16, Math.min(maxTokens, Math.floor(sourceTokens / 2)));
  const entries = prepare(parseEntries(source, isNoise));
  const allIds = identifiers(source);
  const markerCost = estimateTextTokens(FALLBACK_MARKER) + 2;
  const idReserve = Math.min(Math.floor(budget * 0.2), estimateTextTokens(`Identifiers seen: ${allIds.join(", ")}`));
  const room = Math.max(8, budget - markerCost - 4 - idReserve);
  const lines = fitEntries(entries, room);
  const shown = lines.join("\n");
  const idRoom = budget - markerCost - 4 - estimateTextTokens(shown);
  const ids: string[] = [];
  for (const id of allIds) {
    if (shown.includes(id)) continue;
    if (estimateTextTokens(`Identifiers seen: ${[...ids, id].join(", ")}`) > idRoom) break;
    ids.push(id);
  }
  const idLine = ids.length ? `Identifiers seen: ${ids.join(", ")}` : "";
  const text = [FALLBACK_MARKER, ...lines, idLine].filter(Boolean).join("\n");
  return clampTokens(text, budget);
}
