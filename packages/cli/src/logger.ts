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
