import { formatInt } from "../format/numbers.js";
import type { EngineRunMetrics } from "./metrics.js";
import type { ReplaySessionResult } from "./report.js";

/** What the page script needs to draw one chart; embedded as JSON in the report. */
export interface ChartData {
  kind: "context" | "prefix-reuse";
  title: string;
  xLabel: string;
  yLabel: string;
  /** `tokens` axis values are compacted (12k); `percent` get a % sign. */
  unit: "tokens" | "percent";
  yMax?: number;
  /** Request numbers (1-based), shared by every series. */
  x: number[];
  series: Array<{ name: string; color: string; values: Array<number | null> }>;
  /** Horizontal lines: the context length and each engine's compaction threshold. */
  guides: Array<{ y: number; label: string; color: string; dash: number[] }>;
  /** Compaction points: clicking one opens the element with id `target`. */
  markers: Array<{ series: number; x: number; y: number; label: string; target: string }>;
}

/** Element id of a compaction's details: stable, and safe in a URL fragment. */
export function compactionId(sessionIndex: number, engineIndex: number, compactionIndex: number): string {
  return `compaction-${sessionIndex}-${engineIndex}-${compactionIndex}`;
}

function requestAxis(runs: readonly EngineRunMetrics[]): number[] {
  const max = Math.max(0, ...runs.map((r) => r.requests.length));
  return Array.from({ length: max }, (_, i) => i + 1);
}

export function contextChartData(session: ReplaySessionResult, sessionIndex: number, contextLength: number, colorOf: (engine: string) => string): ChartData {
  const x = requestAxis(session.runs);
  const guides: ChartData["guides"] = [];
  if (contextLength > 0) guides.push({ y: contextLength, label: `context length ${formatInt(contextLength)}`, color: "#b42318", dash: [6, 4] });
  const seen = new Set<number>();
  for (const run of session.runs) {
    const t = run.thresholdTokens;
    if (t === null || seen.has(t)) continue;
    seen.add(t);
    const shared = session.runs.filter((r) => r.thresholdTokens === t).map((r) => r.engine);
    guides.push({ y: t, label: `${shared.join(", ")} threshold ${formatInt(t)}`, color: shared.length === 1 ? colorOf(run.engine) : "#666", dash: [2, 4] });
  }
  const markers: ChartData["markers"] = [];
  session.runs.forEach((run, engineIndex) => {
    const byIndex = new Map(run.requests.map((r) => [r.index, r.tokens]));
    run.compactions.forEach((c, i) => {
      if (c.outcome !== "committed") return;
      const tokens = c.beforeTokens !== null && c.afterTokens !== null ? `${formatInt(c.beforeTokens)} → ${formatInt(c.afterTokens)} tokens` : "tokens not reported";
      markers.push({
        series: engineIndex + 1,
        x: c.beforeRequest,
        y: byIndex.get(c.beforeRequest) ?? c.afterTokens ?? 0,
        label: `${run.engine}: compaction before request ${c.beforeRequest}, ${tokens}`,
        target: compactionId(sessionIndex, engineIndex, i),
      });
    });
  });
  return {
    kind: "context",
    title: `Context size per request — ${session.id}`,
    xLabel: "request #",
    yLabel: "tokens sent",
    unit: "tokens",
    x,
    series: session.runs.map((run) => {
      const byIndex = new Map(run.requests.map((r) => [r.index, r.tokens]));
      return { name: run.engine, color: colorOf(run.engine), values: x.map((i) => byIndex.get(i) ?? null) };
    }),
    guides,
    markers,
  };
}

export function reuseChartData(session: ReplaySessionResult, colorOf: (engine: string) => string): ChartData {
  const x = requestAxis(session.runs);
  return {
    kind: "prefix-reuse",
    title: `Prefix reuse per request — ${session.id}`,
    xLabel: "request #",
    yLabel: "% of previous request reused",
    unit: "percent",
    yMax: 100,
    x,
    series: session.runs.map((run) => {
      const byIndex = new Map(run.requests.map((r) => [r.index, r.prefixReuse]));
      return {
        name: run.engine,
        color: colorOf(run.engine),
        values: x.map((i) => {
          const v = byIndex.get(i);
          return v === null || v === undefined ? null : Math.round(v * 1000) / 10;
        }),
      };
    }),
    guides: [],
    markers: [],
  };
}
