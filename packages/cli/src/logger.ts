import type { Logger } from "@context-engine/core";

/**
 * A stderr logger for long commands: each distinct message is printed once
 * (engines may warn on every compaction), through `write` so a progress bar
 * can redraw around it.
 */
export function createCliLogger(write: (line: string) => void, level: "debug" | "info" | "warn" | "error"): Logger {
  const order = { debug: 0, info: 1, warn: 2, error: 3 } as const;
  const seen = new Set<string>();
  const emit = (lvl: keyof typeof order) => (message: string, data?: Record<string, unknown>) => {
    if (order[lvl] < order[level]) return;
    const suffix = data && Object.keys(data).length ? ` ${safeJson(data)}` : "";
    const line = `[${lvl}] ${message}${suffix}`;
    if (lvl !== "debug" && seen.has(line)) return;
    seen.add(line);
    write(line);
  };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}

function safeJson(data: Record<string, unknown>): string {
  try {
    return JSON.stringify(data);
  } catch {
    return "{…}";
  }
}

/**
 * Warnings of a long run as a person reads them: the first of each kind as one plain line (no
 * data tail; --verbose shows it), repeats only counted, and `summary()` for the end of the run.
 */
export function createWarningTally(write: (line: string) => void): { logger: Logger; summary(): string | null } {
  const counts = new Map<string, number>();
  const warn = (message: string) => {
    const n = counts.get(message) ?? 0;
    counts.set(message, n + 1);
    if (n === 0) write(`⚠ ${message}`);
  };
  return {
    logger: { debug() {}, info() {}, warn, error: warn },
    summary() {
      if (counts.size === 0) return null;
      const total = [...counts.values()].reduce((a, b) => a + b, 0);
      const lines = [...counts].sort((a, b) => b[1] - a[1]).map(([message, n]) => `  ${String(n).padStart(4)}× ${message}`);
      return `${total} warning(s) during the replay (--verbose shows each with its figures):\n${lines.join("\n")}\n`;
    },
  };
}
