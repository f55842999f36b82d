/**
 * One set of checks for a summary written by a model, shared by every engine:
 * normalise the answer to plain text, then reject what must never become a
 * summary (a truncated answer, a refusal, a copy of the input, an oversized
 * answer, one that invents identifiers). What an engine does with a rejected
 * answer (fall back, abort) is its own rule; the verdict says why.
 */

import { classifyFinishReason } from "./finish-reason.js";
import { redactSecrets } from "./redact/index.js";
import { contentLines, looksLikeRefusal } from "./summary-refusal.js";

export { classifyFinishReason, finishReasonOf, type FinishClass } from "./finish-reason.js";

export { contentLines, looksLikeRefusal, normalizeForJudging } from "./summary-refusal.js";

/** The prefix older transcripts carried; recognised and replaced, never doubled. */
export const LEGACY_SUMMARY_PREFIX = "[CONTEXT SUMMARY]:";

export type SummaryRejection = "empty" | "truncated" | "refusal" | "copy" | "oversized" | "invented";

export type SummaryVerdict =
  | { ok: true; text: string }
  | { ok: false; reason: SummaryRejection; detail: string };

export interface SummaryAcceptanceInput {
  /** The answer's content as the model returned it: a string, a list of parts, a `{ text }` object. */
  content: unknown;
  finishReason?: string | null | undefined;
  /** An explicit refusal field (OpenAI `message.refusal`). */
  refusal?: string | null | undefined;
  /** The text that was summarised (turns, previous summary); copies of it are rejected. */
  source: string;
  /** Largest acceptable answer in tokens. */
  maxTokens: number;
  /** Where identifiers may legitimately come from; default `source`. */
  knownText?: string | undefined;
  /** Prefixes the engine writes before a summary; stripped from the answer (repeatedly) so none is doubled. */
  prefixes?: readonly string[] | undefined;
  /** Share of checked identifiers that may be absent from `knownText` (default 0.34). */
  maxUnsupportedRatio?: number | undefined;
  /** Token counter; default ceil(chars / 4). */
  countTokens?: ((text: string) => number) | undefined;
}

const THINK_BLOCK = /<(think|thinking|reasoning)>[\s\S]*?<\/\1>/gi;
const FENCED = /^```[a-z]*\n([\s\S]*)\n```$/i;
/**
 * What a summary must not invent, each a kind of identifier: e-mail addresses, URLs and paths (POSIX and
 * Windows), IPv4/IPv6 addresses, versions, file names, 3+ digit numbers, CONSTANT_CASE, snake_case,
 * camelCase and PascalCase names with two humps or more, dotted member names.
 */
const IDENTIFIER_KINDS: readonly string[] = [
  String.raw`[\w.+-]+@[\w-]+(?:\.[\w-]+)+`,
  String.raw`\b[A-Za-z]:\\(?:[^\s"'<>|]*[A-Za-z0-9_])?`,
  // Paths: rooted (/x, ./x, ~/x), of three segments or more, or ending in a file name; not "N/A" or "and/or".
  String.raw`(?<![\w.~/-])(?:~|\.{1,2})?\/[\w.~-]*\w(?:\/[\w.~-]*\w)*`,
  String.raw`\b[\w.~-]+(?:\/[\w.~-]+){1,}\/[\w.~-]*\w`,
  String.raw`\b[\w.~-]+\/(?:[\w.~-]+\/)*[\w~-]+\.[a-z][a-z0-9]{0,4}\b`,
  String.raw`\b(?=[0-9a-fA-F:]*[a-fA-F:]{2})[0-9a-fA-F]{1,4}(?::[0-9a-fA-F]{0,4}){2,7}\b`,
  String.raw`\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b`,
  String.raw`\bv?\d+(?:\.\d+){1,3}(?:-[0-9A-Za-z.]+)?\b`,
  String.raw`\b[A-Za-z_][A-Za-z0-9_-]*\.[a-z][a-z0-9]{0,3}\b`,
  String.raw`\b\d{3,}\b`,
  String.raw`\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b`,
  String.raw`\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b`,
  String.raw`\b[a-z]+[0-9]*[A-Z][A-Za-z0-9]*\b`,
  String.raw`\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*){1,}\b`,
  String.raw`\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\(\)`,
];
const IDENTIFIER = new RegExp(IDENTIFIER_KINDS.join("|"), "g");

/** Characters that print nothing: format controls (zero-width spaces and joiners, BOM, bidi marks), fillers, blanks. */
const INVISIBLE = /[\p{Cf}\p{Cc}\u034F\u115F\u1160\u17B4\u17B5\u180E\u2800\u3164\uFFA0\uFE00-\uFE0F]|\p{Z}|\s/gu;
/** Whether an answer holds no content: only invisible characters, or only headings over empty or filler sections. */
export function isContentless(text: string): boolean {
  if (text.replace(INVISIBLE, "") === "") return true;
  return contentLines(text).length === 0;
}

/**
 * The plain text of a model answer: strings as is, lists of parts joined,
 * `{ text }` / `{ content }` objects unwrapped; reasoning blocks and a fence
 * around the whole answer removed.
 */
export function summaryTextOf(value: unknown, depth = 0): string {
  let text = "";
  if (typeof value === "string") text = value;
  else if (Array.isArray(value) && depth < 4) text = value.map((part) => summaryTextOf(part, depth + 1)).filter(Boolean).join("\n");
  else if (value && typeof value === "object" && depth < 4) {
    const v = value as { text?: unknown; content?: unknown; value?: unknown };
    text = summaryTextOf(v.text ?? v.content ?? v.value, depth + 1);
  }
  if (depth > 0) return text;
  const cleaned = text.replace(THINK_BLOCK, "").trim();
  const fenced = FENCED.exec(cleaned);
  return fenced ? fenced[1]!.trim() : cleaned;
}

/** Remove any of `prefixes` (and the legacy prefix) from the start, as often as they occur. */
export function stripSummaryPrefixes(text: string, prefixes: readonly string[] = []): string {
  const all = [...prefixes, LEGACY_SUMMARY_PREFIX].filter((p) => p.length > 0);
  let out = text.trim();
  for (let guard = 0; guard < 16; guard++) {
    const hit = all.find((p) => out.startsWith(p));
    if (!hit) return out;
    out = out.slice(hit.length).trim();
  }
  return out;
}

export interface FaithfulnessReport {
  checked: number;
  unsupported: string[];
  ratio: number;
}

/** Identifiers, paths and numbers a summary states that do not occur in its sources. */
export function checkFaithfulness(summary: string, source: string): FaithfulnessReport {
  const haystack = source.toLowerCase();
  const seen = new Set<string>();
  const unsupported: string[] = [];
  for (const m of summary.matchAll(IDENTIFIER)) {
    const key = m[0].toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    // A version may be written with or without its `v` (v1.2.3 / 1.2.3).
    if (!haystack.includes(key) && !(/^v\d/.test(key) && haystack.includes(key.slice(1)))) unsupported.push(m[0]);
  }
  return { checked: seen.size, unsupported, ratio: seen.size ? unsupported.length / seen.size : 0 };
}

/**
 * Whether `summary` is essentially a copy of `source` rather than a summary:
 * it is not much shorter than the source and either reproduces most of it
 * (an echo of the whole prompt counts) or consists mostly of its passages.
 */
export function isCopyOf(summary: string, source: string): boolean {
  const a = words(summary);
  // A summary under half its source's length is no copy (the checks below say so too): the source's words are
  // counted only that far instead of split whole, which was most of the cost of accepting a summary of a long source.
  if (wordCountExceeds(source, 2 * a.length)) return false;
  const b = words(source);
  if (a.length < 24 || b.length < 24) return a.length > 0 && a.join(" ") === b.join(" ");
  if (a.length < b.length * 0.5) return false;
  const share = (from: string[], into: string[]) => {
    const grams = new Set<string>();
    for (let i = 0; i + 8 <= into.length; i++) grams.add(into.slice(i, i + 8).join(" "));
    let shared = 0;
    let total = 0;
    for (let i = 0; i + 8 <= from.length; i += 4) {
      total++;
      if (grams.has(from.slice(i, i + 8).join(" "))) shared++;
    }
    return total > 0 ? shared / total : 0;
  };
  return share(b, a) >= 0.6 || share(a, b) >= 0.8;
}

function words(text: string): string[] {
  return text.toLowerCase().split(/[^\p{L}\p{N}_]+/u).filter(Boolean);
}

/**
 * Whether `text` has more than `limit` of the words `words` would split it into (counted up to `limit + 1`).
 * Lower case splits words differently only at U+0130 (İ becomes i and a combining dot): without it the text
 * is scanned as it is, so a long text costs only the words counted.
 */
function wordCountExceeds(text: string, limit: number): boolean {
  const word = /[\p{L}\p{N}_]+/gu;
  const scanned = text.includes("\u0130") ? text.toLowerCase() : text;
  let n = 0;
  while (word.exec(scanned)) if (++n > limit) return true;
  return false;
}

/** Normalise a model answer and decide whether it may become a summary. */
export function acceptSummary(input: SummaryAcceptanceInput): SummaryVerdict {
  const count = input.countTokens ?? ((t: string) => Math.ceil(t.length / 4));
  // The detail quotes the answer, which may hold a credential: it is redacted like anything else we log.
  const reason = (r: SummaryRejection, detail: string): SummaryVerdict => ({ ok: false, reason: r, detail: redactSecrets(detail) });
  const finish = classifyFinishReason(input.finishReason);
  const shown = JSON.stringify(String(input.finishReason ?? "").slice(0, 60));
  if (finish === "truncated") {
    return reason("truncated", `the answer was cut off (finish_reason=${shown}); a partial summary is never kept`);
  }
  if (finish === "filtered") return reason("refusal", `the answer was blocked by a content filter (finish_reason=${shown})`);
  if (typeof input.refusal === "string" && input.refusal.trim()) return reason("refusal", `the model refused: ${input.refusal.trim().slice(0, 200)}`);
  const text = stripSummaryPrefixes(summaryTextOf(input.content), input.prefixes);
  if (!text || isContentless(text)) return reason("empty", "the answer is empty (no visible content beyond markup and headings)");
  if (looksLikeRefusal(text)) return reason("refusal", `the model refused: ${text.slice(0, 200)}`);
  const tokens = count(text);
  if (tokens > input.maxTokens) return reason("oversized", `the answer has ~${tokens} tokens, over the ${input.maxTokens}-token bound`);
  if (isCopyOf(text, input.source)) return reason("copy", "the answer is a copy of its input, not a summary");
  const faith = checkFaithfulness(text, input.knownText ?? input.source);
  const maxRatio = input.maxUnsupportedRatio ?? 0.34;
  // One invented identifier among one or two is as telling as many among many.
  if (faith.unsupported.length > 0 && faith.ratio > maxRatio) {
    return reason("invented", `the answer states ${faith.unsupported.length} identifier(s) absent from its sources (${faith.unsupported.slice(0, 5).join(", ")})`);
  }
  return { ok: true, text };
}

const CAPACITY = /overloaded|at capacity|over capacity/i;
/** Wording some hosts put around every 5xx; it is not the provider saying it is at capacity. */
const HOST_BOILERPLATE = /failed or is overloaded/gi;

function statusOf(error: unknown): number | undefined {
  const own = Number((error as { status?: unknown } | null)?.status);
  if (Number.isFinite(own) && own > 0) return own;
  const cause = (error as { cause?: unknown } | null)?.cause;
  const nested = Number((cause as { status?: unknown } | null | undefined)?.status);
  return Number.isFinite(nested) && nested > 0 ? nested : undefined;
}

/**
 * An HTTP 5xx (other than 504 and 529) whose text states no capacity problem:
 * a summariser should retry it once and then fall back, not treat it as
 * "overloaded". Only an explicit capacity answer (529, "overloaded", "at
 * capacity") counts as overloaded.
 */
export function isServerError(error: unknown): boolean {
  const status = statusOf(error);
  if (status === undefined || status < 500 || status > 599 || status === 529 || status === 504) return false;
  const own = error instanceof Error ? error.message : String(error);
  const cause = (error as { cause?: unknown } | null)?.cause;
  const causeText = cause instanceof Error ? cause.message : typeof cause === "string" ? cause : "";
  return !CAPACITY.test(`${own} ${causeText}`.replace(HOST_BOILERPLATE, ""));
}
