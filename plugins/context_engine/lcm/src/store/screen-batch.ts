import type { Message } from "@context-engine/core";
import type { ScreenThread } from "../redact/screen-thread.js";

/**
 * The redaction pre-screen of a bulk ingest, done ahead on the screen thread:
 * the texts `encodeMessage` will redact (content, text parts, tool-call
 * arguments), collected in the order it reaches them, sent in chunks, and
 * handed back message by message as `ScreenedTexts`.
 */

/** Messages per batch sent to the thread: small enough that the first answer comes back at once. */
const CHUNK = 64;

/** The texts encodeMessage passes to the redactor, in its order (the ones it builds itself are left out). */
export function textsToScreen(message: Message, out: string[]): void {
  const m = message as Record<string, unknown>;
  const content = m.content;
  if (typeof content === "string") out.push(content);
  else if (Array.isArray(content)) {
    for (let i = 0; i < content.length; i++) {
      const p = content[i] as Record<string, unknown> | null | undefined;
      if (i in content && p && typeof p === "object" && p.type === "text" && typeof p.text === "string") out.push(p.text);
    }
  }
  const calls = m.tool_calls;
  if (Array.isArray(calls)) {
    for (let i = 0; i < calls.length; i++) {
      const fn = (calls[i] as { function?: { arguments?: unknown } } | null | undefined)?.function;
      if (i in calls && typeof fn?.arguments === "string") out.push(fn.arguments);
    }
  }
}

/**
 * One message's screened texts. `clean(s)` is true when `s` is the next text
 * of the message and the screen found nothing in it; any other text (an extra
 * field, a stringified argument) is redacted as usual.
 */
export class ScreenedTexts {
  #at: number;
  constructor(
    private readonly texts: readonly string[],
    private readonly flags: Uint8Array,
    from: number,
    private readonly to: number,
  ) {
    this.#at = from;
  }

  clean(s: string): boolean {
    if (this.#at >= this.to || this.texts[this.#at] !== s) return false;
    return this.flags[this.#at++] === 0;
  }
}

/** A bulk ingest's screen, asked for message by message in increasing order. */
export class ScreenBatch {
  readonly #thread: ScreenThread;
  readonly #chunks: Array<{ ticket: number; texts: string[]; flags: Uint8Array | null }> = [];
  /** Message index -> [chunk, first text, end of its texts]. */
  readonly #where = new Map<number, [number, number, number]>();

  /** Sends the texts of `messages[i]`, for every i in `indexes`, to the thread. */
  constructor(thread: ScreenThread, messages: readonly Message[], indexes: readonly number[]) {
    this.#thread = thread;
    for (let c = 0; c < indexes.length; c += CHUNK) {
      const texts: string[] = [];
      for (const i of indexes.slice(c, c + CHUNK)) {
        const from = texts.length;
        textsToScreen(messages[i]!, texts);
        this.#where.set(i, [this.#chunks.length, from, texts.length]);
      }
      this.#chunks.push({ ticket: thread.submit(texts), texts, flags: null });
    }
  }

  #taken = 0;

  /** The screened texts of message i, or null (screen inline) if it was not sent or the thread did not answer. */
  forMessage(i: number): ScreenedTexts | null {
    const w = this.#where.get(i);
    if (!w) return null;
    while (this.#taken <= w[0]) {
      const chunk = this.#chunks[this.#taken++]!;
      chunk.flags = this.#thread.take(chunk.ticket);
    }
    const chunk = this.#chunks[w[0]]!;
    return chunk.flags ? new ScreenedTexts(chunk.texts, chunk.flags, w[1], w[2]) : null;
  }
}
