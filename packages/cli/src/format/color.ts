/** Minimal ANSI styling; a no-op palette when colour is off. */
export interface Palette {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  magenta(text: string): string;
}

const wrap = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;

export function createPalette(enabled: boolean): Palette {
  if (!enabled) {
    const id = (text: string) => text;
    return { bold: id, dim: id, red: id, green: id, yellow: id, cyan: id, magenta: id };
  }
  return {
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
    magenta: wrap(35, 39),
  };
}

const ANSI = /\u001b\[[0-9;]*m/g;

/** Display width of a string without its ANSI escapes. */
export function visibleLength(text: string): number {
  return text.replace(ANSI, "").length;
}
