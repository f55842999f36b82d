import { escapeHtml } from "../format/html.js";
import { formatCompact, formatDuration, formatInt, formatShare } from "../format/numbers.js";
import type { EngineRunMetrics } from "./metrics.js";
import type { ReplayReport, ReplaySessionResult } from "./report.js";
import { renderLineChart, type ChartMarker, type ChartSeries } from "./svg-chart.js";

/** Colour-blind-friendly series colours (Okabe–Ito), one per engine in report order. */
const COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"];

export function engineColor(report: ReplayReport, engine: string): string {
  const i = report.engines.indexOf(engine);
  return COLORS[(i < 0 ? 0 : i) % COLORS.length]!;
}

const STYLE = `
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; color: #1d1d1f; background: #fafafa; }
main { max-width: 1040px; margin: 0 auto; padding: 24px; }
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
svg.chart { width: 100%; height: auto; display: block; }
.legend { display: flex; gap: 16px; flex-wrap: wrap; margin: 4px 8px; color: #333; }
.legend .dot { display: inline-block; width: 7px; height: 7px; border-radius: 50%; background: #555; margin: 0 6px 0 4px; }
.legend .diamond { display: inline-block; width: 8px; height: 8px; border: 2px solid #555; transform: rotate(45deg); margin: 0 6px 0 4px; background: #fff; }
ul.problems li { color: #9b1c1c; } ul.notes li { color: #555; }
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

function compactionTitle(run: EngineRunMetrics, i: number): string {
  const c = run.compactions[i]!;
  const tokens =
    c.beforeTokens !== null && c.afterTokens !== null ? `${formatInt(c.beforeTokens)} → ${formatInt(c.afterTokens)} tokens` : "tokens not reported";
  return `${run.engine}: compaction before request ${c.beforeRequest} (turn ${c.turn + 1}, ${c.outcome}${c.trigger ? `, ${c.trigger}` : ""}): ${tokens}, ${formatDuration(c.durationMs)}`;
}

function contextChart(report: ReplayReport, session: ReplaySessionResult): string {
  const series: ChartSeries[] = session.runs.map((run) => {
    const byIndex = new Map(run.requests.map((r) => [r.index, r.tokens]));
    const markers: ChartMarker[] = run.compactions.flatMap((c, i) => {
      if (c.outcome !== "committed") return [];
      const y = byIndex.get(c.beforeRequest) ?? c.afterTokens ?? 0;
      return [{ x: c.beforeRequest, y, title: compactionTitle(run, i) }];
    });
    for (const pr of run.prunes ?? []) {
      markers.push({
        x: pr.beforeRequest,
        y: byIndex.get(pr.beforeRequest) ?? pr.afterTokens,
        title: `${run.engine}: ${pr.pruned} old tool result(s) trimmed before request ${pr.beforeRequest}: ${formatInt(pr.beforeTokens)} → ${formatInt(pr.afterTokens)} tokens`,
        shape: "circle" as const,
      });
    }
    return {
      name: run.engine,
      color: engineColor(report, run.engine),
      points: run.requests.map((r) => ({
        x: r.index,
        y: r.tokens,
        title: `${run.engine} · request ${r.index} (turn ${r.turn + 1}): ${formatInt(r.tokens)} tokens in ${r.messages} messages${r.prefixReuse === null ? "" : `, ${formatShare(r.prefixReuse)} prefix reused`}`,
      })),
      markers,
    };
  });
  // Turn starts, from the first run (every engine replays the same turns); skipped when too dense to read.
  const firstRun = session.runs.find((r) => r.requests.length > 0);
  const turnStarts: Array<{ x: number; label: string }> = [];
  if (firstRun) {
    let last = -1;
    for (const q of firstRun.requests) {
      if (q.turn !== last && q.turn > 0) turnStarts.push({ x: q.index, label: `turn ${q.turn + 1}` });
      last = q.turn;
    }
  }
  const chart = renderLineChart({
    kind: "context",
    ...(turnStarts.length > 0 && turnStarts.length <= 12 ? { verticals: turnStarts } : {}),
    title: `Context size per request — ${session.id}`,
    xLabel: "request #",
    yLabel: "tokens sent",
    series,
    guides: report.contextLength > 0 ? [{ y: report.contextLength, label: `context length ${formatInt(report.contextLength)}`, color: "#b42318" }] : [],
    formatY: formatCompact,
  });
  return chartBox(report, session, "Context size over the replay", chart, true);
}

function reuseChart(report: ReplayReport, session: ReplaySessionResult): string {
  const series: ChartSeries[] = session.runs.map((run) => ({
    name: run.engine,
    color: engineColor(report, run.engine),
    points: run.requests
      .filter((r) => r.prefixReuse !== null)
      .map((r) => ({
        x: r.index,
        y: (r.prefixReuse ?? 0) * 100,
        title:
          `${run.engine} · request ${r.index}: ${formatShare(r.prefixReuse)} of the previous request reused` +
          (r.afterCompaction ? " (after a compaction)" : "") +
          (r.selection === "applied" ? " (the engine selected this request's context)" : ""),
      })),
  }));
  const chart = renderLineChart({
    kind: "prefix-reuse",
    title: `Prefix reuse per request — ${session.id}`,
    xLabel: "request #",
    yLabel: "% of previous request reused",
    series,
    yMin: 0,
    yMax: 100,
    formatY: (v) => `${v}%`,
    height: 240,
  });
  return chartBox(report, session, "Prefix reuse: share of the previous request repeated unchanged at the start", chart, false);
}

function chartBox(report: ReplayReport, session: ReplaySessionResult, heading: string, chart: string, withMarkers: boolean): string {
  const legend = session.runs
    .map((r) => `<span><span class="swatch" style="background:${engineColor(report, r.engine)}"></span>${escapeHtml(r.engine)}</span>`)
    .join("");
  const markerNote = withMarkers
    ? `<span><span class="diamond"></span>first request after a compaction</span><span><span class="dot"></span>after old tool results were trimmed</span>`
    : "";
  return `<div class="chart-box"><h3>${escapeHtml(heading)}</h3><div class="legend">${legend}${markerNote}</div>${chart}</div>`;
}

function sessionSection(report: ReplayReport, session: ReplaySessionResult, index: number): string {
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
    contextChart(report, session) +
    reuseChart(report, session) +
    (problems.length ? `<h3>Checks failed</h3><ul class="problems">${problems.map((p) => `<li>${escapeHtml(p)}</li>`).join("")}</ul>` : "") +
    (notes.length ? `<h3>Notes</h3><ul class="notes">${notes.map((n) => `<li>${escapeHtml(n)}</li>`).join("")}</ul>` : "");
  // Long folders: keep the page usable by folding all but the first sessions.
  return `<section class="session" data-session="${escapeHtml(session.id)}"><details${index < 5 ? " open" : ""}><summary>${escapeHtml(session.id)}</summary>${body}</details></section>`;
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
<dt>recoverable</dt><dd>For lossless engines: how many of the messages the run put into the conversation are still in the context verbatim, or come back verbatim (role, text, tool calls, tool-call id; a redacted secret counts as its placeholder) from <code>lcm_expand</code> on a summary in the context, or from <code>lcm_grep</code> followed by <code>lcm_expand</code>.</dd>
</dl>`;

/** A self-contained HTML page: inline CSS and SVG only, no script, no network. */
export function renderHtmlReport(report: ReplayReport): string {
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
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>context-engine replay report</h1>
<p class="meta">${status} · engines ${report.engines.map((e) => `<strong>${escapeHtml(e)}</strong>`).join(", ")} · context length ${formatInt(report.contextLength)} tokens · ${report.sessions.length} session${report.sessions.length === 1 ? "" : "s"} · generated ${escapeHtml(report.generatedAt)} by context-engine ${escapeHtml(report.cli.version)}</p>
${totalsSection(report)}
${sessions}
${DEFINITIONS}
</main>
</body>
</html>
`;
}
