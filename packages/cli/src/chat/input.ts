import { Transform, type TransformCallback } from "node:stream";

const PASTE_START = "\u001b[200~";
const PASTE_END = "\u001b[201~";
/** Terminal switches for bracketed paste (the terminal wraps pasted text in the markers above). */
export const BRACKETED_PASTE_ON = "\u001b[?2004h";
export const BRACKETED_PASTE_OFF = "\u001b[?2004l";

/** Pasted blocks kept aside while the line editor shows a short placeholder for each. */
export class PasteBook {
  #texts = new Map<string, string>();
  #next = 1;

  /** Keep `text`; the placeholder that stands for it in the line. */
  add(text: string): string {
    const lines = text.split("\n").length;
    const token = `[pasted text #${this.#next++}, ${lines} lines]`;
    this.#texts.set(token, text);
    return token;
  }

  /** Put the pasted blocks back in place of their placeholders (an edited placeholder stays as typed). */
  expand(line: string): string {
    let out = line;
    for (const [token, text] of this.#texts) {
      if (out.includes(token)) {
        out = out.split(token).join(text);
        this.#texts.delete(token);
      }
    }
    return out;
  }
}

/**
 * Sits between the terminal and the line editor: a bracketed paste with
 * line breaks reaches the editor as one placeholder (so it is one turn with
 * its indentation intact, not a turn per line); a paste without line breaks
 * passes through as typed. Markers split across reads are handled.
 */
export class PasteFilter extends Transform {
  readonly book: PasteBook;
  #pending = "";
  #paste: string | null = null;

  constructor(book = new PasteBook()) {
    super({ decodeStrings: false });
    this.book = book;
  }

  override _transform(chunk: Buffer | string, _encoding: BufferEncoding, done: TransformCallback): void {
    this.#pending += typeof chunk === "string" ? chunk : chunk.toString("utf8");
    this.#drain(false);
    done();
  }

  override _flush(done: TransformCallback): void {
    this.#drain(true);
    if (this.#paste !== null) this.#emitPaste();
    done();
  }

  #drain(final: boolean): void {
    for (;;) {
      const marker = this.#paste === null ? PASTE_START : PASTE_END;
      const at = this.#pending.indexOf(marker);
      if (at === -1) {
        // Keep a tail that may be the start of a marker cut by the read.
        const keep = final ? 0 : partialMarkerLength(this.#pending, marker);
        this.#take(this.#pending.slice(0, this.#pending.length - keep));
        this.#pending = this.#pending.slice(this.#pending.length - keep);
        return;
      }
      this.#take(this.#pending.slice(0, at));
      this.#pending = this.#pending.slice(at + marker.length);
      if (this.#paste === null) this.#paste = "";
      else this.#emitPaste();
    }
  }

  #take(text: string): void {
    if (!text) return;
    if (this.#paste !== null) this.#paste += text;
    else this.push(text);
  }

  #emitPaste(): void {
    const text = (this.#paste ?? "").replace(/\r\n?/g, "\n");
    this.#paste = null;
    const body = text.replace(/\n+$/, "");
    if (!body.includes("\n")) this.push(body);
    else this.push(this.book.add(body));
  }
}

function partialMarkerLength(text: string, marker: string): number {
  for (let n = Math.min(marker.length - 1, text.length); n > 0; n--) {
    if (text.endsWith(marker.slice(0, n))) return n;
  }
  return 0;
}

export type AssembledLine =
  /** A complete message (or command) to act on. */
  | { kind: "message"; text: string }
  /** More lines are expected (continuation or multi-line mode). */
  | { kind: "more" }
  /** `/multi` switched multi-line mode on. */
  | { kind: "multi_started" }
  | { kind: "empty" };

/**
 * Joins typed lines into messages: a line ending in `\` continues on the
 * next line; `/multi` collects lines until a line with only `/end` (or a
 * lone `.`). Indentation is kept; pasted placeholders are expanded.
 */
export class LineAssembler {
  #lines: string[] = [];
  #multi = false;
  readonly #book: PasteBook;

  constructor(book: PasteBook) {
    this.#book = book;
  }

  /** Whether the next line continues a message (for the prompt). */
  get continuing(): boolean {
    return this.#multi || this.#lines.length > 0;
  }
  get multi(): boolean {
    return this.#multi;
  }

  feed(raw: string): AssembledLine {
    const line = raw.replace(/\r$/, "");
    if (this.#multi) {
      if (line.trim() === "/end" || line.trim() === ".") {
        this.#multi = false;
        return this.#finish();
      }
      this.#lines.push(line);
      return { kind: "more" };
    }
    if (this.#lines.length === 0 && line.trim() === "/multi") {
      this.#multi = true;
      return { kind: "multi_started" };
    }
    if (/(?<!\\)\\$/.test(line)) {
      this.#lines.push(line.slice(0, -1));
      return { kind: "more" };
    }
    this.#lines.push(line);
    return this.#finish();
  }

  /** Drop a half-typed message (Ctrl-C at a continuation prompt). */
  cancel(): boolean {
    const had = this.continuing;
    this.#lines = [];
    this.#multi = false;
    return had;
  }

  #finish(): AssembledLine {
    const joined = this.#lines.join("\n");
    // One typed line is trimmed; a block keeps its indentation (a paste is still a placeholder here).
    const text = this.#book.expand(joined.includes("\n") ? joined : joined.trim());
    this.#lines = [];
    return text.trim() ? { kind: "message", text } : { kind: "empty" };
  }
}
