import { escapeHtml } from "../format/html.js";

export interface ChartPoint {
  x: number;
  y: number;
  /** Tooltip for this point; drawn as an invisible hover target. */
  title?: string;
}

export interface ChartMarker extends ChartPoint {
  /** Tooltip text (an SVG <title>). */
  title: string;
  /** `diamond` (default, class `marker`) or `circle` (class `marker-minor`). */
  shape?: "diamond" | "circle";
}

export interface ChartSeries {
  name: string;
  color: string;
  points: ChartPoint[];
  markers?: ChartMarker[];
}

export interface ChartOptions {
  /** Identifies the chart in the page (`data-chart`). */
  kind: string;
  title: string;
  xLabel: string;
  yLabel: string;
  series: ChartSeries[];
  /** Vertical markers (where each turn starts). */
  verticals?: Array<{ x: number; label: string }>;
  /** Horizontal reference lines (the context length, a threshold). */
  guides?: Array<{ y: number; label: string; color: string }>;
  yMin?: number;
  yMax?: number;
  formatY?: (v: number) => string;
  width?: number;
  height?: number;
}

const PAD = { left: 64, right: 16, top: 28, bottom: 44 };

/** Round tick values (1, 2, 5 × 10^n steps) from min; with `cover` the last tick is ≥ max. */
export function niceTicks(min: number, max: number, target = 6, cover = false): number[] {
  if (!(max > min)) return [min];
  const raw = (max - min) / target;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const ticks: number[] = [];
  const end = cover ? Math.ceil(max / step - 1e-9) * step : max;
  for (let v = Math.ceil(min / step) * step; v <= end + step * 1e-9; v += step) ticks.push(Number(v.toFixed(10)));
  return ticks;
}

/**
 * A self-contained SVG line chart: no script, no external resource, tooltips
 * through <title>. Every series is a `<g class="series" data-engine=…>` with
 * one `<path class="line">`, so the report can be checked mechanically.
 */
export function renderLineChart(options: ChartOptions): string {
  const width = options.width ?? 960;
  const height = options.height ?? 340;
  const plotW = width - PAD.left - PAD.right;
  const plotH = height - PAD.top - PAD.bottom;
  const fmt = options.formatY ?? ((v: number) => String(v));
  const all = options.series.flatMap((s) => s.points);
  const xMax = Math.max(1, ...all.map((p) => p.x));
  const xMin = Math.min(xMax, ...all.map((p) => p.x), 1);
  const guideYs = (options.guides ?? []).map((g) => g.y);
  const yMin = options.yMin ?? 0;
  const yMaxRaw = options.yMax ?? Math.max(1, ...all.map((p) => p.y), ...guideYs);
  const yTicks = niceTicks(yMin, yMaxRaw, 6, true);
  const yMax = Math.max(yMaxRaw, yTicks.at(-1) ?? yMaxRaw);
  const sx = (x: number) => PAD.left + (xMax === xMin ? plotW / 2 : ((x - xMin) / (xMax - xMin)) * plotW);
  const sy = (y: number) => PAD.top + plotH - ((y - yMin) / (yMax - yMin || 1)) * plotH;
  const r = (n: number) => n.toFixed(1);

  const out: string[] = [];
  out.push(
    `<svg class="chart" data-chart="${escapeHtml(options.kind)}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeHtml(options.title)}" xmlns="http://www.w3.org/2000/svg">`,
  );
  out.push(`<title>${escapeHtml(options.title)}</title>`);
  // Grid and axes.
  out.push(`<g class="axes" font-size="11" fill="#555">`);
  for (const t of yTicks) {
    out.push(`<line x1="${PAD.left}" x2="${width - PAD.right}" y1="${r(sy(t))}" y2="${r(sy(t))}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${PAD.left - 6}" y="${r(sy(t) + 4)}" text-anchor="end">${escapeHtml(fmt(t))}</text>`);
  }
  for (const t of niceTicks(xMin, xMax, 10).filter((t) => Number.isInteger(t))) {
    out.push(`<line x1="${r(sx(t))}" x2="${r(sx(t))}" y1="${PAD.top + plotH}" y2="${PAD.top + plotH + 4}" stroke="#999"/>`);
    out.push(`<text x="${r(sx(t))}" y="${PAD.top + plotH + 16}" text-anchor="middle">${t}</text>`);
  }
  out.push(`<line x1="${PAD.left}" x2="${width - PAD.right}" y1="${PAD.top + plotH}" y2="${PAD.top + plotH}" stroke="#999"/>`);
  out.push(`<line x1="${PAD.left}" x2="${PAD.left}" y1="${PAD.top}" y2="${PAD.top + plotH}" stroke="#999"/>`);
  out.push(`<text x="${PAD.left + plotW / 2}" y="${height - 8}" text-anchor="middle" fill="#333">${escapeHtml(options.xLabel)}</text>`);
  out.push(
    `<text x="14" y="${PAD.top + plotH / 2}" text-anchor="middle" fill="#333" transform="rotate(-90 14 ${PAD.top + plotH / 2})">${escapeHtml(options.yLabel)}</text>`,
  );
  out.push(`</g>`);
  for (const v of options.verticals ?? []) {
    const x = r(sx(v.x));
    out.push(
      `<g class="vertical"><line x1="${x}" x2="${x}" y1="${PAD.top}" y2="${PAD.top + plotH}" stroke="#c8c8c8" stroke-dasharray="2 4"/>` +
        `<text x="${x}" y="${PAD.top - 6}" text-anchor="middle" font-size="10" fill="#888">${escapeHtml(v.label)}</text></g>`,
    );
  }
  for (const g of options.guides ?? []) {
    const y = r(sy(g.y));
    out.push(
      `<g class="guide"><line x1="${PAD.left}" x2="${width - PAD.right}" y1="${y}" y2="${y}" stroke="${g.color}" stroke-dasharray="6 4" stroke-width="1.5"/>` +
        `<text x="${width - PAD.right - 4}" y="${r(sy(g.y) - 5)}" text-anchor="end" font-size="11" fill="${g.color}">${escapeHtml(g.label)}</text></g>`,
    );
  }
  for (const s of options.series) {
    const d = s.points.map((p, i) => `${i === 0 ? "M" : "L"}${r(sx(p.x))},${r(sy(p.y))}`).join("");
    out.push(`<g class="series" data-engine="${escapeHtml(s.name)}">`);
    out.push(`<path class="line" d="${d || `M${PAD.left},${PAD.top + plotH}`}" fill="none" stroke="${s.color}" stroke-width="2" stroke-linejoin="round"/>`);
    if (s.points.length === 1) {
      const p = s.points[0]!;
      out.push(`<circle cx="${r(sx(p.x))}" cy="${r(sy(p.y))}" r="3" fill="${s.color}"/>`);
    }
    const hoverable = s.points.filter((p) => p.title);
    if (hoverable.length > 0 && hoverable.length <= 5000) {
      out.push(`<g class="points">`);
      for (const p of hoverable) {
        out.push(`<circle cx="${r(sx(p.x))}" cy="${r(sy(p.y))}" r="4" fill="${s.color}" fill-opacity="0" stroke="none"><title>${escapeHtml(p.title!)}</title></circle>`);
      }
      out.push(`</g>`);
    }
    if (s.markers?.length) {
      out.push(`<g class="markers">`);
      for (const m of s.markers) {
        const cx = sx(m.x);
        const cy = sy(m.y);
        const title = `<title>${escapeHtml(m.title)}</title>`;
        if (m.shape === "circle") {
          out.push(`<circle class="marker-minor" cx="${r(cx)}" cy="${r(cy)}" r="3.5" fill="${s.color}" stroke="#fff" stroke-width="1">${title}</circle>`);
        } else {
          out.push(
            `<path class="marker" d="M${r(cx)},${r(cy - 6)}L${r(cx + 6)},${r(cy)}L${r(cx)},${r(cy + 6)}L${r(cx - 6)},${r(cy)}Z" fill="#fff" stroke="${s.color}" stroke-width="2">${title}</path>`,
          );
        }
      }
      out.push(`</g>`);
    }
    out.push(`</g>`);
  }
  out.push(`</svg>`);
  return out.join("");
}
