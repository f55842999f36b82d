import { contentText, toolCallsOf, type Message } from "@context-engine/core";
import { splitSummaries, summaryLabel } from "../format/summary-text.js";

/** A message on one line: its text, or its tool calls when it has no text; cut to `max` characters. */
export function preview(m: Message, max: number): string {
  const calls = toolCallsOf(m);
  let text = contentText(m.content);
  // A summary message reads as its summaries, not as the note to the model before them.
  const parts = splitSummaries(text);
  if (parts) text = parts.summaries.map((s) => s.body).join(" ");
  if (!text && calls.length > 0) text = calls.map((c) => `${c.function.name}(${c.function.arguments})`).join(", ");
  text = text.replace(/\s+/g, " ").trim();
  return text.length > max ? `${text.slice(0, Math.max(0, max - 1))}…` : text;
}

export function indent(text: string, prefix: string): string {
  return text
    .split("\n")
    .map((l) => prefix + l)
    .join("\n");
}

export function share(part: number, whole: number): string {
  return whole > 0 ? `${((part / whole) * 100).toFixed(1)}%` : "–";
}

/** A time as `2026-01-05 14:03 UTC`. */
export function shownTime(at: Date): string {
  return Number.isNaN(at.getTime()) ? "–" : at.toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

/** A message put in by a compaction, summaries first (each under what it covers), the note to the model last and short. */
export function summaryText(text: string, shownTimeOf: (attrs: Record<string, string>) => string | null): string {
  const parts = splitSummaries(text);
  if (!parts) return text;
  const blocks = parts.summaries.map((s) => {
    const when = shownTimeOf(s.attrs);
    return `[${summaryLabel(s.attrs)}${when ? ` · ${when}` : ""}]\n${s.body}`;
  });
  if (parts.note) {
    const first = parts.note.split("\n")[0]!;
    blocks.push(`(The model also reads a ${parts.note.split("\n").length}-line note before these: “${first.length > 70 ? `${first.slice(0, 69)}…` : first}”)`);
  }
  return blocks.join("\n");
}
