import { visibleLength } from "./color.js";

export interface Column {
  header: string;
  /** Numbers read best right-aligned. */
  align?: "left" | "right";
}

/**
 * A plain box-less table: header, a rule, rows. Cells may contain ANSI
 * colour; widths are computed on the visible text.
 */
export function renderTable(columns: readonly Column[], rows: ReadonlyArray<readonly string[]>, options: { indent?: string } = {}): string {
  const indent = options.indent ?? "";
  const widths = columns.map((c, i) => Math.max(visibleLength(c.header), ...rows.map((r) => visibleLength(r[i] ?? ""))));
  const line = (cells: readonly string[]) =>
    indent +
    cells
      .map((cell, i) => {
        const pad = " ".repeat(Math.max(0, (widths[i] ?? 0) - visibleLength(cell)));
        return columns[i]?.align === "right" ? pad + cell : cell + pad;
      })
      .join("  ")
      .trimEnd();
  const out = [line(columns.map((c) => c.header)), indent + widths.map((w) => "─".repeat(w)).join("  ")];
  for (const row of rows) out.push(line(columns.map((_, i) => row[i] ?? "")));
  return `${out.join("\n")}\n`;
}
