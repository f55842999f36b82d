/** A cell: its plain text and how to colour each of its lines. */
export interface FitCell {
  text: string;
  style?: (line: string) => string;
}

export interface FitColumn {
  header: string;
  /** Longest this column may be; longer text is cut with "…". */
  max?: number;
  /**
   * How the column gives way when the table is too wide: `wrap` onto more
   * lines at spaces, or `cut` with "…". Columns without it keep their width.
   */
  flex?: "wrap" | "cut";
  /** Numbers read best right-aligned. */
  align?: "left" | "right";
}

const GAP = 2;
const MIN_FLEX = 16;

/** Terminal width: the stream's, else $COLUMNS, else 80. */
export function terminalWidth(columns: number | undefined, env: Readonly<Record<string, string | undefined>>): number {
  if (columns && columns > 0) return columns;
  const fromEnv = Number(env.COLUMNS);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : 80;
}

/**
 * A box-less table that never runs past `width`: fixed columns are cut at
 * their `max`, wrapping columns share what is left and wrap at spaces.
 */
export function renderFitTable(columns: readonly FitColumn[], rows: ReadonlyArray<readonly FitCell[]>, width: number): string {
  const natural = columns.map((c, i) =>
    Math.min(c.max ?? Infinity, Math.max(c.header.length, ...rows.map((r) => (r[i]?.text ?? "").length))),
  );
  const widths = shareWidth(columns, natural, width);
  const lines: string[] = [];
  const emit = (cells: readonly FitCell[]) => {
    const wrapped = columns.map((c, i) => layout(cells[i]?.text ?? "", widths[i]!, c.flex === "wrap"));
    const height = Math.max(1, ...wrapped.map((w) => w.length));
    for (let k = 0; k < height; k++) {
      const parts = columns.map((_, i) => {
        const text = wrapped[i]![k] ?? "";
        const pad = " ".repeat(Math.max(0, widths[i]! - text.length));
        const style = cells[i]?.style;
        const shown = style && text ? style(text) : text;
        return columns[i]!.align === "right" ? pad + shown : shown + pad;
      });
      lines.push(parts.join(" ".repeat(GAP)).trimEnd());
    }
  };
  emit(columns.map((c) => ({ text: c.header })));
  lines.push(widths.map((w) => "─".repeat(w)).join(" ".repeat(GAP)));
  for (const row of rows) emit(row);
  return `${lines.join("\n")}\n`;
}

/** Flexible columns share what the fixed ones leave: each in turn takes what it needs, leaving the minimum to those after it. */
function shareWidth(columns: readonly FitColumn[], natural: number[], width: number): number[] {
  const total = natural.reduce((s, w) => s + w, 0) + GAP * (columns.length - 1);
  if (total <= width) return natural;
  const flexible = columns.map((c, i) => (c.flex ? i : -1)).filter((i) => i >= 0);
  const fixed = natural.reduce((s, w, i) => (columns[i]!.flex ? s : s + w), 0) + GAP * (columns.length - 1);
  // On a very narrow terminal the minimum gives way too (down to 4 characters).
  const min = Math.max(4, Math.min(MIN_FLEX, Math.floor((width - fixed) / flexible.length)));
  let room = Math.max(min * flexible.length, width - fixed);
  const out = [...natural];
  for (const [k, i] of flexible.entries()) {
    const reserve = min * (flexible.length - k - 1);
    out[i] = Math.max(Math.min(min, natural[i]!), Math.min(natural[i]!, room - reserve));
    room -= out[i]!;
  }
  return out;
}

/** Text cut into lines of at most `width` characters, at spaces where it can be. */
export function wrapText(text: string, width: number): string[] {
  return layout(text, width, true);
}

function layout(text: string, width: number, wrap: boolean): string[] {
  if (text.length <= width) return [text];
  if (!wrap) return [`${text.slice(0, Math.max(0, width - 1))}…`];
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    let rest = word;
    // A word longer than the column is split hard.
    while (rest.length > width) {
      if (line) lines.push(line), (line = "");
      lines.push(rest.slice(0, width));
      rest = rest.slice(width);
    }
    if (!line) line = rest;
    else if (line.length + 1 + rest.length <= width) line += ` ${rest}`;
    else lines.push(line), (line = rest);
  }
  if (line) lines.push(line);
  return lines;
}
