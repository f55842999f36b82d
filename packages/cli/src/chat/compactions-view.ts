import { contentText } from "@context-engine/core";
import { renderFitTable, type FitCell } from "../format/fit-table.js";
import { formatDuration, formatInt } from "../format/numbers.js";
import { triggerLabel, triggerPhrase } from "../format/triggers.js";
import type { LedgerCompaction } from "@context-engine/host";
import type { ChatContext } from "./commands.js";
import type { CompactionRecord } from "./compactions.js";
import { indent, preview, shownTime, summaryText } from "./message-text.js";

/** The engine's `time="a..b"` stamp of a summary, as `2026-01-05 14:03–14:20 UTC`. */
function engineTime(attrs: Record<string, string>): string | null {
  const [from, to] = (attrs.time ?? "").split("..").map((t) => new Date(t));
  if (!from || Number.isNaN(from.getTime())) return null;
  const start = shownTime(from);
  if (!to || Number.isNaN(to.getTime()) || to.getTime() === from.getTime()) return start;
  const end = shownTime(to);
  return end.slice(0, 10) === start.slice(0, 10) ? `${start.replace(" UTC", "")}–${end.slice(11)}` : `${start} – ${end}`;
}

/** The summary column is worth a table only with this much room; a narrower terminal gets one block per compaction. */
const MIN_SUMMARY = 24;

/** `/compactions [n]`: every compaction of this chat (also those before a resume), or one in full. */
export function compactionsView(ctx: ChatContext, arg: string): string {
  const records = ctx.compactions.records;
  if (records.length === 0) return "No compaction yet in this session. /compress runs one now.";
  // Piped output has no edge; tables still keep a readable width.
  const width = Math.min(ctx.width(), 120);
  if (!arg) return `${compactionList(records, width, ctx)}\n/compactions <n> shows what one removed and its summary in full; /undo or /restore <n> puts it back.`;
  const n = Number(/^c(\d+)$/i.exec(arg)?.[1] ?? arg);
  const r = records.find((x) => x.number === n);
  if (!r) return `/compactions: no compaction #${arg}; there are ${records.length} (1–${records.length}).`;
  const entry = ctx.session.compactions().find((e) => e.id === (r.ledgerId ?? `c${r.number}`));
  // The ledger keeps what left whole (also across a resume); the record's previews are the fallback.
  const removed = entry ? entry.removed.map((p) => p.message) : r.removed;
  const lines = [
    `Compaction #${r.number} (${triggerPhrase(r.trigger)}, ${shownTime(r.at)}${r.restored ? ", before this chat was resumed" : ""}): ` +
      `~${formatInt(r.tokensBefore)} → ~${formatInt(r.tokensAfter)} tokens, ${r.messagesBefore} → ${r.messagesAfter} messages`,
    ...(entry ? [ledgerLine(ctx, entry)] : []),
    "",
    `Removed from the context (${removed.length}):`,
    ...removed.map((m) => `  - ${m.role}: ${preview(m, Math.max(20, width - 6 - m.role.length))}`),
    "",
    `Put in its place (${r.added.length}):`,
    ...r.added.map((m) => indent(summaryText(contentText(m.content), engineTime) || JSON.stringify(m.content), "  | ")),
  ];
  if (r.summaryIds.length > 0) lines.push("", `Get the originals back: ${r.summaryIds.map((id) => `/expand ${id}`).join("  ")}`);
  return lines.join("\n");
}

/** Ledger facts of one compaction: its id, engine, focus, cache impact and whether it was put back. */
function ledgerLine(ctx: ChatContext, e: LedgerCompaction): string {
  const restore = ctx.session.ledger().find((x) => x.kind === "restore" && x.compactions.includes(e.id));
  const kept = e.cache.bytesBefore > 0 ? Math.round((e.cache.identicalPrefixBytes / e.cache.bytesBefore) * 100) : 0;
  return (
    `Ledger ${e.id} · engine ${e.engine}${e.focusTopic ? ` · focus "${e.focusTopic}"` : ""} · ` +
    `prompt cache: ${formatInt(e.cache.identicalPrefixBytes)} of ${formatInt(e.cache.bytesBefore)} request bytes unchanged (${kept}%) · ` +
    (restore ? `put back by ${restore.id}` : `/restore ${e.id} puts it back`)
  );
}

function compactionList(records: readonly CompactionRecord[], width: number, ctx: ChatContext): string {
  const undone = new Set(ctx.session.ledger().flatMap((x) => (x.kind === "restore" ? x.compactions : [])));
  const rows = records.map((r) => [
    String(r.number),
    `${triggerLabel(r.trigger)}${undone.has(r.ledgerId ?? `c${r.number}`) ? " (undone)" : ""}`,
    `~${formatInt(r.tokensBefore)} → ~${formatInt(r.tokensAfter)}`,
    `${r.messagesBefore} → ${r.messagesAfter}`,
    String(r.removed.length),
    formatDuration(r.durationMs),
    r.added[0] ? preview(r.added[0], 200) : "–",
  ]);
  const headers = ["#", "trigger", "tokens", "messages", "removed", "took", "summary"];
  const fixed = headers.slice(0, -1).reduce((sum, h, i) => sum + Math.max(h.length, ...rows.map((row) => row[i]!.length)) + 2, 0);
  if (width - fixed >= MIN_SUMMARY) {
    return renderFitTable(
      headers.map((header, i) => ({ header, ...(i === 0 || i === 4 ? { align: "right" as const } : {}), ...(i === 6 ? { flex: "cut" as const } : {}) })),
      rows.map((row) => row.map((text): FitCell => ({ text }))),
      width,
    ).trimEnd();
  }
  // Narrow: each compaction as a short block, its summary on its own line.
  return records
    .map((r, i) => {
      const [, trigger, tokens, messages, removed, took, summary] = rows[i]!;
      return [
        `#${r.number} ${trigger} · ${shownTime(r.at)}`,
        `   tokens ${tokens} · messages ${messages} · removed ${removed} · took ${took}`,
        `   summary: ${preview(r.added[0] ?? { role: "user", content: summary! }, Math.max(10, width - 12))}`,
      ].join("\n");
    })
    .join("\n");
}
