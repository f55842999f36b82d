import { humanTime } from "../format/dates.js";
import { escapeHtml } from "../format/html.js";
import { formatDuration, formatInt, formatShare } from "../format/numbers.js";
import { contextChartData, reuseChartData, type ChartData } from "./chart-data.js";
import { compactionsSection, evidenceSection } from "./render-compactions.js";
import { REPORT_SCRIPT, uplotAssets } from "./report-script.js";
import type { EngineRunMetrics } from "./metrics.js";
import type { ReplayReport, ReplaySessionResult } from "./report.js";

/** Colour-blind-friendly series colours (Okabe–Ito), one per engine in report order. */
const COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"];

export function engineColor(report: ReplayReport, engine: string): string {
  const i = report.engines.indexOf(engine);
  return COLORS[(i < 0 ? 0 : i) % COLORS.length]!;
}

const STYLE = `
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; color: #1d1d1f; background: #fafafa; }
main { max-width: 1280px; margin: 0 auto; padding: 24px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 32px 0 6px; } h3 { font-size: 15px; margin: 18px 0 6px; }
.meta, .source { color: #555; }
.status { display: inline-block; padding: 2px 10px; border-radius: 12px; font-weight: 600; }
.status.ok { background: #e3f5ea; color: #17663a; } .status.fail { background: #fde8e8; color: #9b1c1c; }
table { border-collapse: collapse; width: 100%; background: #fff; margin: 8px 0; }
th, td { padding: 5px 8px; border-bottom: 1px solid #e6e6e6; text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
th { font-weight: 600; background: #f2f2f4; white-space: normal; vertical-align: bottom; }
.table-wrap { overflow-x: auto; }
td.bad { color: #b42318; font-weight: 600; } td.good { color: #17663a; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px; margin-right: 6px; vertical-align: -1px; }
.chart-box { background: #fff; border: 1px solid #e6e6e6; border-radius: 6px; padding: 8px; margin: 10px 0; }
.chart-box h3 { margin: 4px 8px; }
.chart .plot { width: 100%; overflow: hidden; min-height: 240px; }
.uplot { font-size: 12px; } .u-legend { font-size: 12px; text-align: left; } .u-legend .u-series { padding: 2px 6px; }
.legend { display: flex; gap: 6px 16px; flex-wrap: wrap; margin: 4px 8px; color: #333; }
.legend .diamond { display: inline-block; width: 8px; height: 8px; border: 2px solid #555; transform: rotate(45deg); margin: 0 6px 0 4px; background: #fff; }
.legend .dash { display: inline-block; width: 18px; border-top: 2px dashed #666; margin: 0 6px 3px 2px; } .legend .dash.red { border-color: #b42318; } .legend .dash.dotted { border-top-style: dotted; }
details.compactions { margin: 6px 0 14px; } details.compactions > summary { font-size: 14px; margin: 8px 0; }
details.compaction { background: #fff; border: 1px solid #e6e6e6; border-radius: 6px; margin: 6px 0; padding: 0 10px; }
details.compaction > summary { font-weight: 400; font-size: 14px; margin: 8px 0; }
details.compaction.selected { border-color: #0072B2; box-shadow: 0 0 0 2px #0072B233; }
.compaction-body h4 { margin: 10px 0 4px; font-size: 13px; }
pre.summary-text { white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f8fa; border-radius: 4px; padding: 8px; margin: 4px 0; max-height: 320px; overflow-y: auto; font-size: 12px; }
ol.replaced { padding-left: 28px; margin: 4px 0 10px; max-height: 320px; overflow-y: auto; }
ol.replaced li { margin: 2px 0; overflow-wrap: anywhere; } ol.replaced .role { font-weight: 600; } ol.replaced .tok { color: #666; font-size: 12px; } ol.replaced .text { color: #333; }
code, .source { overflow-wrap: anywhere; }
@media (max-width: 600px) {
  main { padding: 12px; } h1 { font-size: 19px; }
  th, td { padding: 4px 6px; font-size: 13px; }
  /* Wide tables scroll inside their box; the engine column stays in view. */
  .table-wrap th:first-child, .table-wrap td:first-child { position: sticky; left: 0; z-index: 1; background: #fff; box-shadow: 1px 0 0 #e6e6e6; }
  .table-wrap th:first-child { background: #f2f2f4; }
}
ul.problems li { color: #9b1c1c; } ul.notes li { color: #555; }
.failing { background: #fde8e8; border-radius: 6px; padding: 8px 12px; margin: 10px 0; } .failing h2 { margin: 0 0 4px; font-size: 16px; color: #9b1c1c; }
.failing ul { margin: 0; padding-left: 20px; } .failing li { overflow-wrap: anywhere; } .failing .why { color: #444; }
p.summary-label { margin: 6px 0 0; font-size: 12px; overflow-wrap: anywhere; }
details.model-note > summary { font-size: 12px; font-weight: 400; color: #555; margin: 4px 0; }
pre.note-text { white-space: pre-wrap; overflow-wrap: anywhere; color: #555; font-size: 12px; margin: 2px 0 8px; }
/* The hover legend floats over the plot and shows only while the pointer is on it (no row of dashes at rest). */
.chart .plot { position: relative; }
.chart .u-legend { position: absolute; top: 4px; left: 56px; z-index: 2; background: rgba(255,255,255,.94); border: 1px solid #e6e6e6; border-radius: 4px; visibility: hidden; pointer-events: none; width: auto; }
.chart.hovering .u-legend { visibility: visible; }
details > summary { cursor: pointer; font-weight: 600; font-size: 16px; margin: 24px 0 6px; }
dl.defs dt { font-weight: 600; margin-top: 6px; } dl.defs dd { margin: 0 0 0 16px; color: #444; }
`;

function metricsTable(report: ReplayReport, runs: readonly EngineRunMetrics[]): string {
  const head = [
    "engine",
    "requests",
    "tokens sent",
    "peak context",
    "mean context",
    "compactions",
    "compaction time",
    "over budget",
    "prefix reuse",
    "prefix reuse (steady)",
    "recoverable",
  ];
  const rows = runs.map((run) => {
    const s = run.summary;
    const rec = run.recoverability;
    const recCell = rec
      ? `<td class="${rec.recovered === rec.checked ? "good" : "bad"}">${rec.recovered}/${rec.checked}</td>`
      : `<td>${run.lossless ? "not checked" : "n/a (lossy)"}</td>`;
    return (
      `<tr data-engine="${escapeHtml(run.engine)}">` +
      `<td><span class="swatch" style="background:${engineColor(report, run.engine)}"></span>${escapeHtml(run.engine)}</td>` +
      `<td>${formatInt(s.requests)}</td><td>${formatInt(s.tokensSent)}</td><td>${formatInt(s.peakContext)}</td>` +
      `<td>${formatInt(s.meanContext)}</td>` +
      `<td>${s.compactions}${s.compactionFailures ? ` (+${s.compactionFailures} failed)` : ""}</td>` +
      `<td>${escapeHtml(formatDuration(s.compactionTimeMs))}</td>` +
      `<td class="${s.overBudget ? "bad" : "good"}">${s.overBudget}</td>` +
      `<td>${formatShare(s.prefixReuse)}</td><td>${formatShare(s.prefixReuseSteady)}</td>` +
      recCell +
      `</tr>`
    );
  });
  return `<div class="table-wrap"><table class="metrics"><thead><tr>${head.map((h) => `<th>${h}</th>`).join("")}</tr></thead><tbody>${rows.join("")}</tbody></table></div>`;
}

function chartBox(report: ReplayReport, session: ReplaySessionResult, heading: string, data: ChartData): string {
  const legend = session.runs
    .map((r) => `<span><span class="swatch" style="background:${engineColor(report, r.engine)}"></span>${escapeHtml(r.engine)}</span>`)
    .join("");
  const notes =
    data.kind === "context"
      ? `<span><span class="diamond"></span>a compaction (click for its summary)</span><span><span class="dash red"></span>context length</span>` +
        (data.guides.length > 1 ? `<span><span class="dash dotted"></span>compaction threshold</span>` : "")
      : "";
  // `<` is escaped so a session's text can never close the script element.
  const json = JSON.stringify(data).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
  return (
    `<div class="chart-box"><h3>${escapeHtml(heading)}</h3><div class="legend">${legend}${notes}</div>` +
    `<div class="chart" data-chart="${data.kind}" role="img" aria-label="${escapeHtml(data.title)}"><div class="plot"></div>` +
    `<script type="application/json" class="chart-data">${json}</script></div></div>`
  );
}

function sessionSection(report: ReplayReport, session: ReplaySessionResult, index: number): string {
  const colorOf = (engine: string) => engineColor(report, engine);
  const problems = session.runs.flatMap((r) => [
    ...r.errors.map((e) => `${r.engine}: ${e}`),
    ...(r.recoverability?.missing ?? []).map((m) => `${r.engine}: message ${m.index} (${m.role}) not recoverable — ${m.preview}`),
  ]);
  const notes = [
    ...(session.repairs ?? []).map((r) => `the session reader repaired the recording: ${r}`),
    ...session.runs.flatMap((r) => r.notes.map((n) => `${r.engine}: ${n}`)),
  ];
  const src = session.source;
  const body =
    `<p class="source">${escapeHtml(session.format)} · ${session.messages} messages · ${session.turns} turn${session.turns === 1 ? "" : "s"} · ` +
    `source <code>${escapeHtml(src.path)}</code>${src.origin ? ` · origin ${escapeHtml(src.origin)}` : ""}${src.license ? ` · licence ${escapeHtml(src.license)}` : ""}</p>` +
    metricsTable(report, session.runs) +
    recoverabilityNotes(session) +
    evidenceSection(session, colorOf) +
    chartBox(report, session, "Context size over the replay", contextChartData(session, index, report.contextLength, colorOf)) +
    compactionsSection(session, index, colorOf) +
    chartBox(report, session, "Prefix reuse: share of the previous request repeated unchanged at the start", reuseChartData(session, colorOf)) +
    (problems.length ? `<h3>Checks failed</h3><ul class="problems">${problems.map((p) => `<li>${escapeHtml(p)}</li>`).join("")}</ul>` : "") +
    (notes.length ? `<h3>Notes</h3><ul class="notes">${notes.map((n) => `<li>${escapeHtml(n)}</li>`).join("")}</ul>` : "");
  // Long folders: keep the page usable by folding all but the first sessions.
  return `<section class="session" id="${sessionAnchor(index)}" data-session="${escapeHtml(session.id)}"><details class="session-details"${index < 5 ? " open" : ""}><summary>${escapeHtml(session.id)}</summary>${body}</details></section>`;
}

const sessionAnchor = (index: number) => `session-${index}`;

/** What failed in one session, in a line: the first problem of each failing engine. */
function problemsOf(session: ReplaySessionResult): string[] {
  return session.runs.flatMap((r) => {
    const lost = r.recoverability ? r.recoverability.checked - r.recoverability.recovered : 0;
    const first = r.errors[0];
    if (!first && lost === 0) return [];
    const more = r.errors.length > 1 ? ` (+${r.errors.length - 1} more)` : "";
    return [`${r.engine}: ${first ?? `${lost} message(s) not recoverable`}${first ? more : ""}`];
  });
}

/** At the top of a failed report: which sessions failed and why, each linked to its section. */
function failingSection(report: ReplayReport): string {
  const failing = report.sessions.map((s, i) => ({ s, i, problems: problemsOf(s) })).filter((f) => f.problems.length > 0);
  if (failing.length === 0) return "";
  const items = failing
    .map(({ s, i, problems }) => `<li><a href="#${sessionAnchor(i)}">${escapeHtml(s.id)}</a> <span class="why">— ${escapeHtml(problems.join("; "))}</span></li>`)
    .join("");
  const n = failing.length;
  return `<section class="failing"><h2>${n} of ${report.sessions.length} session${report.sessions.length === 1 ? "" : "s"} failed ${n === 1 ? "its" : "their"} checks</h2><ul>${items}</ul></section>`;
}

function recoverabilityNotes(session: ReplaySessionResult): string {
  const lines = session.runs.flatMap((r) => {
    const rec = r.recoverability;
    if (!rec) return [];
    const via = rec.via
      ? `: ${rec.via.inContext} still in the context, ${rec.via.expandedSummaries} expanded from summaries, ${rec.via.searched} found by search`
      : "";
    return [`<li><strong>${escapeHtml(r.engine)}</strong> recovered ${rec.recovered} of ${rec.checked} messages${via} <span class="meta">(${escapeHtml(rec.method)})</span></li>`];
  });
  return lines.length ? `<ul class="recoverability">${lines.join("")}</ul>` : "";
}

function totalsSection(report: ReplayReport): string {
  if (report.sessions.length < 2) return "";
  const rows = report.totals
    .map(
      (t) =>
        `<tr data-engine="${escapeHtml(t.engine)}"><td><span class="swatch" style="background:${engineColor(report, t.engine)}"></span>${escapeHtml(t.engine)}</td>` +
        `<td>${t.sessions}</td><td>${formatInt(t.requests)}</td><td>${formatInt(t.tokensSent)}</td><td>${formatInt(t.peakContext)}</td><td>${formatInt(t.meanContext)}</td>` +
        `<td>${t.compactions}${t.compactionFailures ? ` (+${t.compactionFailures} failed)` : ""}</td><td>${escapeHtml(formatDuration(t.compactionTimeMs))}</td>` +
        `<td class="${t.overBudget ? "bad" : "good"}">${t.overBudget}</td><td>${formatShare(t.prefixReuse)}</td>` +
        `<td>${t.recoverable ? `${t.recoverable.recovered}/${t.recoverable.checked}` : t.lossless ? "not checked" : "n/a (lossy)"}</td></tr>`,
    )
    .join("");
  return (
    `<h2>All ${report.sessions.length} sessions</h2><div class="table-wrap"><table class="totals"><thead><tr><th>engine</th><th>sessions</th><th>requests</th><th>tokens sent</th>` +
    `<th>peak context</th><th>mean context</th><th>compactions</th><th>compaction time</th><th>over budget</th><th>prefix reuse</th><th>recoverable</th></tr></thead><tbody>${rows}</tbody></table></div>`
  );
}

const DEFINITIONS = `<h2>What the figures mean</h2><dl class="defs">
<dt>tokens sent</dt><dd>Sum over all provider requests of the tokens in the final message list the host sent (after the engine's selection, sanitising and cache breakpoints), plus tool schemas when the host counts them.</dd>
<dt>peak / mean context</dt><dd>Largest and average request size in tokens.</dd>
<dt>compactions</dt><dd>Committed compaction passes; failed or timed-out passes are counted separately. Time is the wall-clock time the host measured for each pass.</dd>
<dt>over budget</dt><dd>Requests larger than the context length. Must be 0.</dd>
<dt>prefix reuse</dt><dd>For each request after the first: the share of the previous request's tokens that the new request repeats unchanged at its start (message by message, ignoring cache-control markers) — what a provider's prompt cache could serve. Weighted by tokens. “Steady” leaves out the requests right after a compaction or a trimming of old tool results, which must rewrite the prefix.</dd>
<dt>compactions list</dt><dd>For each committed compaction: the tokens the host counted before and after it, the messages it put in (the summary) and the messages it took out (the span it replaced), found by comparing the conversation before and after it message by message. Texts are cut at 4,000 characters and lists at 40 messages to keep the report small.</dd>
<dt>evidence recall</dt><dd>Only for data whose sessions carry questions with evidence (LoCoMo's <code>qa[].evidence</code> lists the turns that answer each question). Over the questions whose evidence turns were replayed: an evidence turn is <em>in the final context</em> when its text is verbatim in the conversation at the end of the run or in the last request sent (a summary quoting it counts); <em>recoverable</em> (lossless engines) when it is in that context or comes back verbatim through <code>lcm_expand</code> / <code>lcm_grep</code>, as the recoverability check found. A question counts when all its evidence turns do. No model is asked; answer quality is for <code>pnpm eval</code>.</dd>
<dt>recoverable</dt><dd>For lossless engines: how many of the messages the run put into the conversation are still in the context verbatim, or come back verbatim (role, text, tool calls, tool-call id; a redacted secret counts as its placeholder) from <code>lcm_expand</code> on a summary in the context, or from <code>lcm_grep</code> followed by <code>lcm_expand</code>.</dd>
</dl>`;

/** A self-contained HTML page: inline CSS, uPlot and the page script inlined, no network. */
export function renderHtmlReport(report: ReplayReport): string {
  const uplot = uplotAssets();
  const status = report.ok
    ? `<span class="status ok">all checks passed</span>`
    : `<span class="status fail">checks failed</span>`;
  const sessions = report.sessions.map((s, i) => sessionSection(report, s, i)).join("");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="context-engine ${escapeHtml(report.cli.version)}">
<title>context-engine replay — ${escapeHtml(report.engines.join(" vs "))}</title>
<style>${uplot.css}</style>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>context-engine replay report</h1>
<p class="meta">${status} · engines ${report.engines.map((e) => `<strong>${escapeHtml(e)}</strong>`).join(", ")} · context length ${formatInt(report.contextLength)} tokens · ${report.sessions.length} session${report.sessions.length === 1 ? "" : "s"} · generated <time datetime="${escapeHtml(report.generatedAt)}">${escapeHtml(humanTime(report.generatedAt))}</time> by context-engine ${escapeHtml(report.cli.version)}</p>
${report.ok ? "" : failingSection(report)}
${totalsSection(report)}
${sessions}
${DEFINITIONS}
</main>
<script>${uplot.js.replace(/<\/script/gi, "<\\/script")}</script>
<script>${REPORT_SCRIPT}</script>
</body>
</html>
`;
}
