import type { EngineCheckpoint, GrepKind } from "./engine-suite.js";
import type { BacklogFigures, HostResult } from "./host-suite.js";
import type { MachineInfo } from "./machine.js";
import type { Stats, Timing } from "./stats.js";
import type { TargetResult } from "./targets.js";

export interface BenchReport {
  machine: MachineInfo;
  settings: Record<string, unknown>;
  targets: TargetResult[];
  engine: EngineCheckpoint[];
  host: HostResult[];
}

/** One point of the cost-against-history chart. */
export interface SeriesPoint {
  series: string;
  messages: number;
  ms: number;
}

const GREP_LABEL: Record<GrepKind, string> = {
  words: "lcm_grep words p95",
  rare: "lcm_grep rare term p95",
  cjk: "lcm_grep CJK p95",
  regex_page: "lcm_grep regex page p95",
  regex_oldest: "lcm_grep regex oldest-only literal, page 1, p95",
  expand: "lcm_expand p95",
};

/** The timing series drawn on the chart (and nothing that is not a time). */
export function chartSeries(report: BenchReport): SeriesPoint[] {
  const out: SeriesPoint[] = [];
  const add = (series: string, messages: number, ms: number) => {
    if (Number.isFinite(ms) && ms > 0) out.push({ series, messages, ms });
  };
  for (const p of report.engine.filter((x) => x.store === "sqlite")) {
    add("ingest (onTurnComplete) p50", p.messages, p.ingest.median);
    add("ingest (onTurnComplete) p95", p.messages, p.ingest.p95);
    add("compaction trigger (compress at the threshold) p95", p.messages, p.compress.p95);
    add("selectContext per request p95", p.messages, p.select.p95);
    add("no-op compress p95", p.messages, p.noopCompress.p95);
    add("complete regex p95", p.messages, p.regexComplete.p95);
    for (const kind of Object.keys(GREP_LABEL) as GrepKind[]) add(GREP_LABEL[kind], p.messages, p.grep[kind].p95);
  }
  for (const h of report.host) add(`host per turn, ${h.engine}${h.store === "postgres" ? " on PostgreSQL" : ""} (${h.mode}), p50`, h.history, h.perTurn.median);
  return out;
}

const fmt = (ms: number) => (!Number.isFinite(ms) ? "–" : ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
const cell = (s: Stats) => (s.n === 0 ? "– (n=0)" : `${fmt(s.median)} / ${fmt(s.p95)} (n=${s.n})`);
/** Wall median / p95, then the CPU time of the same calls. */
const timingCell = (s: Timing) => (s.n === 0 ? "– (n=0)" : `${fmt(s.median)} / ${fmt(s.p95)} · CPU ${fmt(s.cpu.median)} / ${fmt(s.cpu.p95)} (n=${s.n})`);
const count = (s: Stats) => (s.n === 0 ? "–" : `${fmt(s.median)} / ${fmt(s.p95)}`);

function pad(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join("  ")).join("\n");
}

/** The stdout table: every figure per history length, then the targets with PASS/MISS. */
export function formatTable(report: BenchReport): string {
  const m = report.machine;
  const lines = [
    `context-engine bench — ${m.date} — ${m.cpu} × ${m.cores} cores, ${m.memoryGiB} GiB, Node ${m.node}, commit ${m.commit}${m.dirty ? " (dirty)" : ""}`,
    `load average at start ${m.loadStart.join(" ")}, at end ${m.loadEnd.join(" ")}`,
    "",
  ];
  if (report.engine.length) {
    const head = ["LCM engine: wall median / p95 ms · CPU median / p95 ms (n)", ...report.engine.map((p) => `${p.messages.toLocaleString("en")} msgs, ${p.store}`)];
    const row = (label: string, pick: (p: EngineCheckpoint) => string) => [label, ...report.engine.map(pick)];
    const rows = [
      head,
      row("load average (1 min) while measured", (p) => `${p.ingest.load} (tools ${p.regexComplete.load})`),
      row("ingest: onTurnComplete", (p) => timingCell(p.ingest)),
      row("selectContext per request", (p) => `${timingCell(p.select)}${p.selections ? ` ${p.selections} replaced` : ""}`),
      row("host deep copy per turn", (p) => timingCell(p.hostCopy)),
      row("background preparation per turn", (p) => timingCell(p.background)),
      row("compaction trigger: compress() at the threshold", (p) => timingCell(p.compress)),
      row("background work per compaction (before it)", (p) => (p.preparedAhead ? timingCell(p.preparedAhead) : "–")),
      row("the two together (a compaction's whole work)", (p) => timingCell(p.trigger)),
      row("compress() nothing new", (p) => timingCell(p.noopCompress)),
      ...(Object.keys(GREP_LABEL) as GrepKind[]).map((k) => row(GREP_LABEL[k].replace(" p95", ""), (p) => timingCell(p.grep[k]))),
      row("  one-page regexes: page 1 held the message", (p) => `regex page ${p.regexPageOnPage1} of ${p.grep.regex_page.n}, oldest-only ${p.regexOldestOnPage1} of ${p.grep.regex_oldest.n}`),
      row("complete regex (all pages)", (p) => `${timingCell(p.regexComplete)} ${p.regexComplete.pages}p`),
    ];
    if (report.engine.some((p) => p.roundTrips)) {
      rows.push(
        row("round trips per onTurnComplete, median / p95", (p) => (p.roundTrips ? count(p.roundTrips.ingest) : "")),
        row("round trips per selectContext", (p) => (p.roundTrips ? count(p.roundTrips.select) : "")),
        row("round trips of background work per turn", (p) => (p.roundTrips ? count(p.roundTrips.background) : "")),
      );
    }
    rows.push(
      row("database / raw text", (p) => `${(p.dbBytes / 2 ** 20).toFixed(1)} MiB / ${(p.rawBytes / 2 ** 20).toFixed(1)} MiB = ${p.dbRatio.toFixed(2)}×`),
      row("of it the -wal file (while writing)", (p) => (p.store === "sqlite" ? `${(p.walBytes / 2 ** 20).toFixed(1)} MiB (${((p.walWritingBytes ?? 0) / 2 ** 20).toFixed(1)} MiB)` : "")),
      row("heap / RSS after GC", (p) => `${(p.heapBytes / 2 ** 20).toFixed(0)} / ${(p.rssBytes / 2 ** 20).toFixed(0)} MiB`),
      row("live list / compactions", (p) => `${p.liveMessages} / ${p.compactions}`),
    );
    lines.push(pad(rows), "");
  }
  if (report.host.length) {
    const label = (h: HostResult) => `${h.engine}${h.store ? ` (${h.store})` : ""}, ${h.mode === "resumed" ? "resumed (history grown turn by turn)" : "history imported at open"}`;
    lines.push(
      pad([
        ["AgentHost, host's own time (send minus provider), ms", "history", "first turn (CPU) @ load", "of it in the engine's hooks (CPU)", "per later turn: median / p95 · CPU (n)", "engine's background CPU during a turn (not in the turn's CPU): median / p95", "load", "round trips per turn", "wall per turn", "live list", "backlog after the turns → after the drain (threshold), drain wall (CPU) @ load"],
        ...report.host.map((h) => [
          label(h),
          h.history.toLocaleString("en"),
          `${fmt(h.firstTurnMs)} (${fmt(h.firstTurnCpuMs)}) @ ${h.firstTurnLoad}`,
          h.firstTurnEngineMs === undefined ? "" : `${fmt(h.firstTurnEngineMs)} (${fmt(h.firstTurnEngineCpuMs)})`,
          timingCell(h.perTurn),
          h.perTurnBackgroundCpu ? `${fmt(h.perTurnBackgroundCpu.median)} / ${fmt(h.perTurnBackgroundCpu.p95)}` : "",
          String(h.perTurn.load),
          h.roundTrips ? count(h.roundTrips) : "",
          cell(h.perTurnWall),
          String(h.liveMessages),
          h.backlog ? backlogCell(h.backlog) : "",
        ]),
      ]),
      "",
    );
  }
  if (report.targets.length) {
    lines.push(
      pad([
        ["target", "measure", "at", "value", "CPU time", "limit", ""],
        ...report.targets.map((t) => [
          t.name,
          t.measure,
          t.at.toLocaleString("en"),
          `${fmt(t.value)} ${t.unit}`,
          t.cpu === undefined ? "" : `${fmt(t.cpu)} ${t.unit}`,
          `≤ ${t.limit} ${t.unit}`,
          t.status,
        ]),
      ]),
    );
  }
  return lines.join("\n");
}

/** A Vega-Lite spec: cost against history length, both axes logarithmic, machine and commit in the subtitle. */
export function chartSpec(report: BenchReport): Record<string, unknown> {
  const m = report.machine;
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: {
      text: "context-engine: cost against history length (log axes)",
      subtitle: [
        `${m.date.slice(0, 16)}Z · ${m.cpu} × ${m.cores} cores · Node ${m.node} · commit ${m.commit}${m.dirty ? " (dirty)" : ""}`,
        `load average ${m.loadStart.join(" ")} → ${m.loadEnd.join(" ")} · lines: p50 or p95 per figure, as named`,
      ],
    },
    width: 640,
    height: 420,
    background: "white",
    data: { values: chartSeries(report) },
    mark: { type: "line", point: true },
    encoding: {
      x: { field: "messages", type: "quantitative", scale: { type: "log", nice: false }, title: "messages of history" },
      y: { field: "ms", type: "quantitative", scale: { type: "log" }, title: "milliseconds" },
      color: { field: "series", type: "nominal", title: null, legend: { orient: "right", labelLimit: 400 } },
    },
  };
}

/** Render the chart to SVG headless (vega's SVG renderer needs no canvas or browser). */
export async function renderChartSvg(report: BenchReport): Promise<string> {
  const vega = await import("vega");
  const { compile } = await import("vega-lite");
  const compiled = compile(chartSpec(report) as never).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: "none" });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}

export function chartHtml(report: BenchReport, svg: string, table: string): string {
  const escape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>context-engine bench ${escape(report.machine.date)}</title></head>
<body style="font-family: system-ui, sans-serif; margin: 2rem">
${svg}
<pre>${escape(table)}</pre>
</body></html>
`;
}

function backlogCell(b: BacklogFigures): string {
  const k = (n: number) => `${(n / 1000).toFixed(0)}k`;
  return `${k(b.frontierAfterTurns)} → ${k(b.frontierDrained)} (${k(b.threshold)}), ${fmt(b.drainMs)} (${fmt(b.drainCpuMs)}) ms @ ${b.load}`;
}
