/**
 * A lossless engine's summary message holds, besides the summaries, a note
 * to the model (how to get originals back). People want the summary first:
 * this splits the two.
 */
export interface SummaryPart {
  /** The tag's attributes (`id`, `messages`, `count`, `time`, …). */
  attrs: Record<string, string>;
  body: string;
}

// A text cut short (the report keeps 4,000 characters) may end inside a summary: it runs to the end.
const SUMMARY = /<summary\s([^>]*)>\n?([\s\S]*?)(?:\n?<\/summary>|$)/g;
const ATTR = /([A-Za-z_][\w-]*)="([^"]*)"/g;
const WRAPPER = /<\/?lcm_context>/g;

/** The summaries in `text` and the rest (the note to the model); null when it holds no `<summary …>` element. */
export function splitSummaries(text: string): { summaries: SummaryPart[]; note: string } | null {
  const summaries: SummaryPart[] = [];
  for (const m of text.matchAll(SUMMARY)) {
    const attrs: Record<string, string> = {};
    for (const a of m[1]!.matchAll(ATTR)) attrs[a[1]!] = unescape(a[2]!);
    summaries.push({ attrs, body: m[2]!.replaceAll("</summary_>", "</summary>").trim() });
  }
  if (summaries.length === 0) return null;
  const note = text.replace(SUMMARY, "").replace(WRAPPER, "").replace(/\n{2,}/g, "\n").trim();
  return { summaries, note };
}

/** `sum_1 · messages #0-#3 (4)`: what a summary covers, from its attributes. */
export function summaryLabel(attrs: Record<string, string>): string {
  const parts = [attrs.id ?? "summary"];
  if (attrs.messages) parts.push(`messages ${attrs.messages}${attrs.count ? ` (${attrs.count})` : ""}`);
  if (attrs.quality === "fallback") parts.push("fallback (not written by a model)");
  return parts.join(" · ");
}

/** A summary's `time="from..to"` attribute as epoch ms, or null when it has none that reads as two times. */
export function summarySpan(attrs: Record<string, string>): { from: number; to: number } | null {
  const [from, to] = (attrs.time ?? "").split("..").map((t) => Date.parse(t));
  return Number.isFinite(from) && Number.isFinite(to) ? { from: from!, to: to! } : null;
}

function unescape(text: string): string {
  return text.replace(/&(lt|gt|amp|quot);/g, (_, e: string) => ({ lt: "<", gt: ">", amp: "&", quot: '"' })[e]!);
}
