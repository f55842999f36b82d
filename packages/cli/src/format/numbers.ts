/** Human-readable figures for tables and reports. */

const grouped = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

export function formatInt(value: number): string {
  return Number.isFinite(value) ? grouped.format(Math.round(value)) : "–";
}

/** `0.8734` → `87.3%`; null → `–`. */
export function formatShare(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "–";
  return `${(value * 100).toFixed(digits)}%`;
}

/** Milliseconds as `850 ms`, `1.24 s`, `2 min 05 s`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "–";
  if (ms < 1000) return `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 2 : 1)} s`;
  const min = Math.floor(s / 60);
  return `${min} min ${String(Math.round(s - min * 60)).padStart(2, "0")} s`;
}

/** `12345` → `12.3k` for compact axis labels. */
export function formatCompact(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1e6) return `${trim(value / 1e6)}M`;
  if (abs >= 1e3) return `${trim(value / 1e3)}k`;
  return String(Math.round(value));
}

function trim(n: number): string {
  return n.toFixed(Math.abs(n) >= 100 ? 0 : 1).replace(/\.0$/, "");
}
