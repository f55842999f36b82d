import type { Palette } from "../format/color.js";
import { formatDuration, formatInt, formatShare } from "../format/numbers.js";
import { renderTable, type Column } from "../format/table.js";
import { visibleLength } from "../format/color.js";
import { wrapText } from "../format/fit-table.js";
import type { EngineRunMetrics } from "./metrics.js";
import type { EngineTotals, ReplayReport } from "./report.js";

const COLUMNS: Column[] = [
  { header: "engine" },
  { header: "requests", align: "right" },
  { header: "tokens sent", align: "right" },
  { header: "peak ctx", align: "right" },
  { header: "mean ctx", align: "right" },
  { header: "compactions", align: "right" },
  { header: "compaction time", align: "right" },
  { header: "over budget", align: "right" },
  { header: "prefix reuse", align: "right" },
  { header: "recoverable", align: "right" },
];

/** Narrower headers for a narrow terminal, by column. */
const SHORT_HEADERS = ["engine", "reqs", "sent", "peak", "mean", "compact", "c.time", "over", "reuse", "recoverable"];
/** Columns given up first when even the short headers do not fit: compaction time, mean, tokens sent, prefix reuse. */
const DROP_ORDER = [6, 4, 2, 8];

/** The table at most `width` columns wide: short headers first, then the least important columns left out (named below it). */
function fittedTable(rows: string[][], width: number): string {
  const full = renderTable(COLUMNS, rows);
  if (widest(full) <= width) return full;
  let keep = COLUMNS.map((_, i) => i);
  const build = () =>
    renderTable(
      keep.map((i) => ({ ...COLUMNS[i]!, header: SHORT_HEADERS[i]! })),
      rows.map((r) => keep.map((i) => r[i] ?? "")),
    );
  let table = build();
  for (const drop of DROP_ORDER) {
    if (widest(table) <= width) break;
    keep = keep.filter((i) => i !== drop);
    table = build();
  }
  const hidden = COLUMNS.filter((_, i) => !keep.includes(i)).map((c) => c.header);
  if (!hidden.length) return table;
  return `${table}${wrapText(`(not shown at this width: ${hidden.join(", ")}; see --json or the HTML report)`, width).join("\n")}\n`;
}

function widest(text: string): number {
  return Math.max(...text.split("\n").map((l) => visibleLength(l)));
}

function recoverableCell(p: Palette, lossless: boolean, rec: { checked: number; recovered: number } | null): string {
  if (!rec) return lossless ? p.yellow("not checked") : p.dim("n/a (lossy)");
  const text = `${rec.recovered}/${rec.checked}`;
  return rec.recovered === rec.checked ? p.green(text) : p.red(text);
}

function compactionsCell(p: Palette, done: number, failed: number): string {
  return failed > 0 ? `${done} ${p.yellow(`(+${failed} failed)`)}` : String(done);
}

function overBudgetCell(p: Palette, n: number): string {
  return n === 0 ? p.green("0") : p.red(String(n));
}

function runRow(p: Palette, run: EngineRunMetrics): string[] {
  const s = run.summary;
  return [
    run.errors.length ? p.red(run.engine) : p.bold(run.engine),
    formatInt(s.requests),
    formatInt(s.tokensSent),
    formatInt(s.peakContext),
    formatInt(s.meanContext),
    compactionsCell(p, s.compactions, s.compactionFailures),
    formatDuration(s.compactionTimeMs),
    overBudgetCell(p, s.overBudget),
    formatShare(s.prefixReuse),
    recoverableCell(p, run.lossless, run.recoverability),
  ];
}

function totalsRow(p: Palette, t: EngineTotals): string[] {
  return [
    t.errors ? p.red(t.engine) : p.bold(t.engine),
    formatInt(t.requests),
    formatInt(t.tokensSent),
    formatInt(t.peakContext),
    formatInt(t.meanContext),
    compactionsCell(p, t.compactions, t.compactionFailures),
    formatDuration(t.compactionTimeMs),
    overBudgetCell(p, t.overBudget),
    formatShare(t.prefixReuse),
    recoverableCell(p, t.lossless, t.recoverable),
  ];
}

/** One line per run for data with questions: how much of their evidence the final context still holds. */
function evidenceLines(runs: ReplayReport["sessions"][number]["runs"]): string {
  const lines = runs.flatMap((r) => {
    const e = r.evidence;
    if (!e) return [];
    const recoverable = e.recoverable === null ? "" : `; recoverable ${e.recoverable}/${e.evidenceTurns} turns, ${e.questionsRecoverable}/${e.questions} questions`;
    return [`  evidence (${e.questions} questions) ${r.engine}: in the final context ${e.inContext}/${e.evidenceTurns} turns, ${e.questionsInContext}/${e.questions} questions${recoverable}\n`];
  });
  return lines.join("");
}

/** The terminal summary: one table per session, a totals table when there are several, then problems. */
export function renderReplayTables(report: ReplayReport, p: Palette, width = Number.POSITIVE_INFINITY): string {
  const parts: string[] = [];
  for (const session of report.sessions) {
    const details = `(${session.format}, ${session.messages} messages, ${session.turns} turn${session.turns === 1 ? "" : "s"}, context length ${formatInt(report.contextLength)})`;
    const fits = session.id.length + 1 + details.length <= width;
    parts.push(fits ? `${p.bold(session.id)} ${p.dim(details)}\n` : `${p.bold(session.id)}\n${wrapText(details, width).map((l) => p.dim(l)).join("\n")}\n`);
    parts.push(fittedTable(session.runs.map((r) => runRow(p, r)), width));
    parts.push(evidenceLines(session.runs));
    parts.push("\n");
  }
  if (report.sessions.length > 1) {
    parts.push(`${p.bold(`All ${report.sessions.length} sessions`)}\n`);
    parts.push(fittedTable(report.totals.map((t) => totalsRow(p, t)), width));
    parts.push("\n");
  }
  const problems: string[] = [];
  // The same error in many sessions (an engine that cannot load) is shown once.
  const errorRuns = new Map<string, string[]>();
  // The same note in many runs (a format quirk) is shown once with where it occurred.
  const noteRuns = new Map<string, string[]>();
  for (const s of report.sessions) {
    for (const r of s.runs) {
      for (const e of r.errors) errorRuns.set(`${r.engine}: ${e}`, [...(errorRuns.get(`${r.engine}: ${e}`) ?? []), s.id]);
      for (const missing of r.recoverability?.missing ?? []) {
        problems.push(`${s.id} / ${r.engine}: message ${missing.index} (${missing.role}) not recoverable: ${missing.preview}`);
      }
      for (const n of r.notes) noteRuns.set(n, [...(noteRuns.get(n) ?? []), `${s.id} / ${r.engine}`]);
    }
  }
  problems.unshift(...[...errorRuns].map(([text, ids]) => (ids.length === 1 ? `${ids[0]} / ${text}` : `${text} (${ids.length} sessions)`)));
  const repaired = report.sessions.filter((s) => s.repairs?.length);
  const notes = [...noteRuns].map(([text, runs]) => (runs.length === 1 ? `${runs[0]}: ${text}` : `${text} (${runs.length} runs)`));
  if (repaired.length) {
    const first = repaired[0]!;
    const count = repaired.reduce((n, s) => n + s.repairs!.length, 0);
    notes.push(`the session reader made ${count} repair(s) in ${repaired.length} recording(s), e.g. ${first.id}: ${first.repairs![0]}`);
  }
  if (notes.length) parts.push(`${p.dim("Notes:")}\n${capped(notes, 8).map((n) => p.dim(bullet(n, width))).join("\n")}\n\n`);
  if (problems.length) parts.push(`${p.red("Checks failed:")}\n${capped(problems, 20).map((n) => bullet(n, width)).join("\n")}\n\n`);
  else {
    const ok = `✔ every request fit the context length${report.totals.some((t) => t.recoverable) ? "; every message is still recoverable from the lossless engines" : ""}`;
    const lines = Number.isFinite(width) ? wrapText(ok, width) : [ok];
    parts.push(`${lines.join("\n").replace(/^✔/, p.green("✔"))}\n`);
  }
  return parts.join("");
}

/** `  - text`, wrapped to `width` with the continuation lines indented under the text. */
function bullet(text: string, width: number): string {
  if (!Number.isFinite(width)) return `  - ${text}`;
  return wrapText(text, Math.max(20, width - 4)).map((line, i) => `${i === 0 ? "  - " : "    "}${line}`).join("\n");
}

/** At most `max` lines; the rest are counted (all of them are in --json and the HTML report). */
function capped(lines: string[], max: number): string[] {
  if (lines.length <= max) return lines;
  return [...lines.slice(0, max - 1), `… and ${lines.length - max + 1} more (see --json or the HTML report)`];
}
