import type { HostEvent, StreamDelta } from "@context-engine/host";
import type { Palette } from "../format/color.js";
import type { TextSink } from "../io.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/**
 * What a person sees while a turn runs: a spinner while waiting (only on a
 * terminal), the answer's text as it streams in (stdout), a live line for a
 * tool call being written, and the host's notices (stderr) in between.
 */
export class TurnView {
  readonly #out: TextSink;
  readonly #err: TextSink;
  readonly #p: Palette;
  readonly #live: boolean;
  #timer: NodeJS.Timeout | null = null;
  #frame = 0;
  #status = "";
  #statusShown = false;
  #started = 0;
  /** Text streamed for the current request. */
  #streamed = "";
  /** Whether stdout is mid-line (streamed text without its newline yet). */
  #midLine = false;
  #running = false;
  #turnStreamed = 0;

  constructor(out: TextSink, err: TextSink, palette: Palette) {
    this.#out = out;
    this.#err = err;
    this.#p = palette;
    this.#live = err.isTTY === true;
  }

  /** Characters of answer text streamed in the current turn (a partial answer when the turn then fails). */
  get streamedChars(): number {
    return this.#turnStreamed;
  }

  begin(): void {
    this.#turnStreamed = 0;
    this.#running = true;
    this.#started = Date.now();
    this.#streamed = "";
    this.#setStatus("thinking");
  }

  /** A new provider request: text streamed by an earlier one is finished. */
  request(): void {
    this.#endLine();
    this.#streamed = "";
    this.#setStatus("thinking");
  }

  delta(delta: StreamDelta): void {
    if (delta.kind === "text") {
      this.#clearStatus();
      this.#out.write(delta.text);
      this.#streamed += delta.text;
      this.#turnStreamed += delta.text.length;
      this.#midLine = !delta.text.endsWith("\n");
      return;
    }
    this.#endLine();
    const name = delta.name ?? "a tool";
    this.#setStatus(`calling ${name} · ${delta.argumentsChars} chars of arguments`);
  }

  /** A notice line (tool result, compaction, retry…) between streamed parts. */
  notice(line: string): void {
    this.#clearStatus();
    this.#endLine();
    this.#err.write(`${line}\n`);
    if (this.#running) this.#setStatus("working");
  }

  /** The turn ended: stop the spinner; print the answer unless it was streamed already. */
  end(finalText: string | null): void {
    this.#running = false;
    this.#clearStatus();
    if (finalText !== null) {
      const shown = this.#streamed.trim() !== "" && this.#streamed.trim() === finalText.trim();
      if (!shown) {
        this.#endLine();
        this.#out.write(`${finalText}\n`);
        this.#midLine = false;
      }
    }
    this.#endLine();
  }

  #endLine(): void {
    if (this.#midLine) {
      this.#out.write("\n");
      this.#midLine = false;
    }
  }

  #setStatus(label: string): void {
    if (!this.#live) return;
    this.#status = label;
    if (!this.#timer) {
      this.#timer = setInterval(() => this.#draw(), 100);
      this.#timer.unref?.();
    }
    this.#draw();
  }

  #draw(): void {
    if (!this.#live || !this.#status || this.#midLine) return;
    const seconds = ((Date.now() - this.#started) / 1000).toFixed(1);
    this.#frame = (this.#frame + 1) % FRAMES.length;
    this.#err.write(`\r\u001b[K${this.#p.cyan(FRAMES[this.#frame]!)} ${this.#p.dim(`${this.#status}… ${seconds}s (Ctrl-C cancels)`)}`);
    this.#statusShown = true;
  }

  #clearStatus(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#status = "";
    if (this.#statusShown) this.#err.write("\r\u001b[K");
    this.#statusShown = false;
  }
}

/** Host events that drive the view (the rest become notices through describeChatEvent). */
export function isViewEvent(event: HostEvent): boolean {
  return event.type === "provider.delta" || event.type === "provider.request";
}
