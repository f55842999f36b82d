import type { TextSink } from "../io.js";

export interface Progress {
  /** Set the amount of work; may be called again when it becomes known more precisely. */
  setTotal(total: number): void;
  /** Advance by `n` units and show `detail` next to the bar. */
  tick(n?: number, detail?: string): void;
  /** A line that must stay visible (the bar is redrawn below it). */
  log(line: string): void;
  /** Remove the bar. */
  done(): void;
}

/**
 * A one-line progress bar on stderr, redrawn at most ~12 times a second.
 * On a non-TTY sink it draws nothing and only passes `log` lines through, so
 * CI logs and test output stay readable.
 */
export function createProgress(sink: TextSink, options: { enabled: boolean; label?: string; now?: () => number }): Progress {
  const now = options.now ?? (() => performance.now());
  const live = options.enabled && sink.isTTY === true;
  let total = 0;
  let current = 0;
  let detail = "";
  let lastDraw = -Infinity;
  let drawn = false;
  const started = now();

  const clear = () => {
    if (drawn) sink.write("\r\u001b[2K");
    drawn = false;
  };
  const draw = (force = false) => {
    if (!live) return;
    const t = now();
    if (!force && t - lastDraw < 80) return;
    lastDraw = t;
    const cols = Math.max(40, Math.min(sink.columns || 80, 120));
    const share = total > 0 ? Math.min(1, current / total) : 0;
    const counts = `${current}/${total || "?"}`;
    const elapsed = `${((t - started) / 1000).toFixed(1)}s`;
    const label = options.label ? `${options.label} ` : "";
    const width = Math.max(10, Math.min(30, cols - label.length - counts.length - elapsed.length - 20));
    const filled = Math.round(share * width);
    let text = `${label}[${"█".repeat(filled)}${"░".repeat(width - filled)}] ${counts} ${elapsed}`;
    if (detail) text += ` ${detail}`;
    if (text.length > cols - 1) text = text.slice(0, cols - 2) + "…";
    sink.write(`\r\u001b[2K${text}`);
    drawn = true;
  };

  return {
    setTotal(n) {
      total = Math.max(0, Math.floor(n));
      draw(true);
    },
    tick(n = 1, d) {
      current += n;
      if (d !== undefined) detail = d;
      draw();
    },
    log(line) {
      clear();
      sink.write(line.endsWith("\n") ? line : `${line}\n`);
      draw(true);
    },
    done() {
      clear();
    },
  };
}
