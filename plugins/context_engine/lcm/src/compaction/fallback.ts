import { estimateTextTokens } from "@context-engine/core";

/**
 * The deterministic last resort of the summary escalation. It never calls a
 * model and it always compresses: the result is bounded by `maxTokens` and by
 * half the source size, whatever the input. It is extractive (first line of
 * each block, then the identifiers found anywhere), with injection-shaped
 * sentences removed so untrusted text is not promoted into a permanent summary.
 */

const INJECTION =
  /\b(ignore (all |any )?(previous|prior|above) (instructions|messages)|disregard (the )?(previous|above)|you are now\b|act as (an? )?(unrestricted|jailbroken)|system prompt|developer mode|\bDAN\b)/i;

const IDENTIFIER =
  /(?:[A-Za-z0-9_.-]*\/[A-Za-z0-9_./-]+|\b[A-Za-z_][A-Za-z0-9_]*\.(?:py|ts|js|tsx|jsx|json|md|yaml|yml|go|rs|java|c|h|cpp|sql|sh|toml)\b|\b[A-Z][A-Z0-9_]{3,}\b|\b\d[\d.,:-]{2,}\b|https?:\/\/\S+)/g;

export const FALLBACK_MARKER = "[LCM fallback summary: extracted without a model; expand for the full text]";

/** Lines that look like prompt injection are replaced, not copied. */
export function scrubInjection(line: string): string {
  return INJECTION.test(line) ? "[directive-shaped text omitted]" : line;
}

function firstLine(block: string, maxChars: number): string {
  const lines = block.split("\n").filter((l) => l.trim() !== "");
  const header = lines[0] ?? "";
  const body = lines.slice(1).join(" ").replace(/\s+/g, " ").trim();
  const text = body.length > maxChars ? `${body.slice(0, maxChars)}…` : body;
  return scrubInjection(text ? `${header} ${text}` : header);
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

/**
 * Build the fallback summary of a rendered source (blocks separated by blank
 * lines, as `renderSourceMessages` or summary joining produce them).
 */
export function deterministicSummary(source: string, sourceTokens: number, maxTokens: number): string {
  const budget = Math.max(16, Math.min(maxTokens, Math.floor(sourceTokens / 2)));
  const blocks = source.split(/\n{2,}/).filter((b) => b.trim() !== "");
  const perBlock = Math.max(40, Math.floor((budget * 4) / Math.max(1, blocks.length)) - 20);
  const lines = blocks.map((b) => firstLine(b, Math.min(perBlock, 240)));

  const ids: string[] = [];
  const seen = new Set<string>();
  for (const match of source.matchAll(IDENTIFIER)) {
    const id = match[0].replace(/[.,:;)]+$/, "");
    if (id.length < 3 || seen.has(id)) continue;
    seen.add(id);
    ids.push(id);
    if (ids.length >= 40) break;
  }
  const idLine = ids.length ? `Identifiers seen: ${ids.join(", ")}` : "";

  // Keep the head and the tail of the timeline when it does not fit.
  const fixed = estimateTextTokens(FALLBACK_MARKER) + estimateTextTokens(idLine) + 8;
  let kept = lines;
  const lineBudget = Math.max(8, budget - Math.min(fixed, Math.floor(budget / 2)));
  if (estimateTextTokens(lines.join("\n")) > lineBudget) {
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
    kept = omitted > 0 ? [...head, `[… ${omitted} more entries omitted …]`, ...tail] : [...head, ...tail];
  }
  const text = [FALLBACK_MARKER, ...kept, idLine].filter(Boolean).join("\n");
  return clampTokens(text, budget);
}
