import { visibleLength } from "./color.js";
import { wrapText } from "./fit-table.js";

/**
 * Text laid out for a terminal of a given width: prose wraps at spaces
 * (continuation lines keep the line's indent), a path or URL too long for
 * its place is elided in the middle so its start and its file name stay.
 */

/** A single token that names a file or an address: elided in the middle rather than wrapped. */
export function isPathLike(text: string): boolean {
  return !/\s/.test(text) && (/^(~|\.{0,2}\/|[A-Za-z]:[\\/])/.test(text) || /^[a-z][a-z0-9+.-]*:\/\//i.test(text));
}

/** `/home/me/.context-engine/chats/abc.jsonl` → `/home/me/…/chats/abc.jsonl`: the start and the file name kept, cut at separators when it can. */
export function elideMiddle(text: string, width: number): string {
  if (text.length <= width) return text;
  if (width < 5) return text.slice(0, Math.max(0, width));
  const room = width - 1;
  const parts = text.split(/(?<=[\\/])/);
  // The tail: whole trailing segments (the file name first) while they leave room for a useful start.
  let tail = parts.pop() ?? "";
  while (parts.length > 1 && tail.length + parts.at(-1)!.length <= room * 0.65) tail = parts.pop()! + tail;
  if (tail.length > room - 4) tail = tail.slice(tail.length - Math.ceil(room * 0.6));
  let head = text.slice(0, room - tail.length);
  const lastSep = Math.max(head.lastIndexOf("/"), head.lastIndexOf("\\"));
  if (lastSep > head.length / 2) head = head.slice(0, lastSep + 1);
  return `${head}…${tail}`;
}

/** One value in a column of `width`: a path elided, anything else wrapped. */
export function fitValue(text: string, width: number): string[] {
  if (visibleLength(text) <= width) return [text];
  if (isPathLike(text)) return [elideMiddle(text, width)];
  return wrapText(text, width);
}

/**
 * Every line of `text` made to fit `width`: a longer line wraps at spaces,
 * its continuation lines indented like it (plus two for a list item).
 * Lines with colour codes are left as they are when they fit.
 */
export function fitLines(text: string, width: number): string {
  return text
    .split("\n")
    .flatMap((line) => fitLine(line, width))
    .join("\n");
}

function fitLine(line: string, width: number): string[] {
  if (visibleLength(line) <= width) return [line];
  // Colour codes would be split by wrapping: drop them for the few lines that need it.
  const plain = line.replace(/\u001b\[[0-9;]*m/g, "");
  let lead = /^(\s*(?:[-*•|·] |\d+\. )?)/.exec(plain)![1]!;
  if (lead.length > width / 3) lead = "";
  // A quoted block (`  | text`) repeats its marker; anything else continues under its text.
  const next = /^\s*\|\s/.test(lead) ? lead : " ".repeat(lead.length);
  const body = plain.slice(lead.length);
  if (isPathLike(body.trim())) return [lead + elideMiddle(body.trim(), width - lead.length)];
  return wrapText(body, width - lead.length).map((piece, i) => (i === 0 ? lead : next) + piece);
}

/**
 * A two-column label/value list that fits `width`: labels take what they
 * need up to a third of the width (wrapping beyond it), values the rest.
 */
export function renderKeyValues(rows: ReadonlyArray<readonly [string, string]>, width: number): string {
  const labelWidth = Math.max(4, Math.min(Math.max(...rows.map(([k]) => k.length)), Math.floor(width / 3)));
  const valueWidth = Math.max(8, width - labelWidth - 2);
  const out: string[] = [];
  for (const [key, value] of rows) {
    const pad = /^ */.exec(key)![0];
    const keys = wrapText(key.trimStart(), labelWidth - pad.length).map((k) => pad + k);
    const values = value.split("\n").flatMap((v) => fitValue(v, valueWidth));
    const height = Math.max(keys.length, values.length);
    for (let i = 0; i < height; i++) out.push(`${(keys[i] ?? "").padEnd(labelWidth)}  ${values[i] ?? ""}`.trimEnd());
  }
  return out.join("\n");
}
