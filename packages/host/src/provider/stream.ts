import { ChatModelError } from "@context-engine/core";
import { createParser } from "eventsource-parser";
import { z } from "zod";
import { isAbortError } from "./errors.js";
import { ProviderUsageSchema } from "./response-schema.js";

/** Progress of a streamed answer, as it arrives. */
export type StreamDelta =
  | { kind: "text"; text: string }
  /** A tool call being written: its name once known, and how much of its arguments has arrived. */
  | { kind: "tool_call"; index: number; id: string | null; name: string | null; argumentsChars: number };

/** One `chat.completion.chunk` as far as the host reads it; providers add fields. */
const ChunkSchema = z.looseObject({
  model: z.string().nullish(),
  choices: z
    .array(
      z.looseObject({
        index: z.number().int().nonnegative().optional(),
        delta: z
          .looseObject({
            role: z.string().nullish(),
            content: z.string().nullish(),
            refusal: z.string().nullish(),
            tool_calls: z
              .array(
                z.looseObject({
                  index: z.number().int().nonnegative(),
                  id: z.string().nullish(),
                  function: z.looseObject({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
                }),
              )
              .nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: ProviderUsageSchema.nullish(),
  error: z.unknown().optional(),
});

interface ToolCallDraft {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Folds the chunks of a streamed chat completion into the body a
 * non-streamed request would have returned (choice 0 only), reporting each
 * piece of text and tool-call progress on the way. Lines that are not valid
 * JSON chunks are counted and skipped; an `error` chunk throws.
 */
export class StreamAccumulator {
  #content = "";
  #refusal = "";
  #tools: ToolCallDraft[] = [];
  #finish: string | null = null;
  #usage: unknown = null;
  #model: string | null = null;
  #chunks = 0;
  #done = false;
  /** Data lines that were not a valid chunk (skipped). */
  malformed = 0;
  readonly #onDelta: (delta: StreamDelta) => void;
  readonly #where: string;

  constructor(onDelta: (delta: StreamDelta) => void = () => {}, baseURL = "") {
    this.#onDelta = onDelta;
    this.#where = baseURL ? ` (${baseURL})` : "";
  }

  /** Whether the `[DONE]` sentinel arrived. */
  get done(): boolean {
    return this.#done;
  }
  /** Whether the model finished: a finish reason or `[DONE]` arrived. A stream that just stops did not. */
  get finished(): boolean {
    return this.#done || this.#finish !== null;
  }
  get chunks(): number {
    return this.#chunks;
  }

  /** Feed one SSE `data:` payload. */
  push(data: string): void {
    const text = data.trim();
    if (text === "[DONE]") {
      this.#done = true;
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.malformed++;
      return;
    }
    const parsed = ChunkSchema.safeParse(json);
    if (!parsed.success) {
      this.malformed++;
      return;
    }
    const chunk = parsed.data;
    if (chunk.error !== undefined && chunk.error !== null) throw streamError(chunk.error, this.#where);
    this.#chunks++;
    if (chunk.model) this.#model = chunk.model;
    if (chunk.usage) this.#usage = chunk.usage;
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    if (!choice) return;
    if (choice.finish_reason) this.#finish = choice.finish_reason;
    const delta = choice.delta;
    if (!delta) return;
    if (delta.content) {
      this.#content += delta.content;
      this.#onDelta({ kind: "text", text: delta.content });
    }
    if (delta.refusal) this.#refusal += delta.refusal;
    for (const part of delta.tool_calls ?? []) this.#toolPart(part);
  }

  #toolPart(part: { index: number; id?: string | null; function?: { name?: string | null; arguments?: string | null } | null }): void {
    const draft = (this.#tools[part.index] ??= { id: "", name: "", arguments: "" });
    if (part.id) draft.id = part.id;
    if (part.function?.name) draft.name += part.function.name;
    if (part.function?.arguments) draft.arguments += part.function.arguments;
    this.#onDelta({ kind: "tool_call", index: part.index, id: draft.id || null, name: draft.name || null, argumentsChars: draft.arguments.length });
  }

  /** The chat-completion body the chunks add up to (validated later like any response). */
  result(): Record<string, unknown> {
    if (this.#chunks === 0) {
      const detail = this.malformed > 0 ? `${this.malformed} line(s) were not valid JSON chunks` : "no chunks arrived";
      throw new ChatModelError("unknown", `the server's streamed answer could not be read${this.#where}: ${detail}`);
    }
    if (!this.finished) {
      // A cut connection or a broken proxy: the text may be partial and a tool call's arguments cut
      // where they still parse, so nothing of it is used (and no tool runs).
      const calls = this.#tools.filter((t) => t !== undefined).length;
      throw new ChatModelError(
        "network",
        `the streamed answer ended before the model finished (no finish reason and no [DONE])${this.#where}; ` +
          `the partial answer (${this.#content.length} characters${calls ? `, ${calls} unfinished tool call(s)` : ""}) was discarded`,
      );
    }
    const toolCalls = this.#tools
      .filter((t): t is ToolCallDraft => t !== undefined)
      .map((t, i) => ({ id: t.id || `call_stream_${i}`, type: "function", function: { name: t.name, arguments: t.arguments } }));
    const message: Record<string, unknown> = { role: "assistant", content: this.#content.length > 0 ? this.#content : null };
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    if (this.#refusal) message.refusal = this.#refusal;
    const body: Record<string, unknown> = { choices: [{ index: 0, message, finish_reason: this.#finish }] };
    if (this.#usage) body.usage = this.#usage;
    if (this.#model) body.model = this.#model;
    return body;
  }
}

function streamError(error: unknown, where: string): ChatModelError {
  const e = (error && typeof error === "object" ? error : { message: String(error) }) as { message?: unknown; code?: unknown };
  const message = typeof e.message === "string" && e.message ? e.message : JSON.stringify(error);
  return new ChatModelError("server_error", `the server reported an error mid-answer${where}: ${message}`);
}

/**
 * Read a `text/event-stream` body to the end through a maintained SSE
 * parser (framing, CRLF, comments, split chunks), folding each event's data
 * into `accumulator`. Resolves when the body ends or `[DONE]` arrives.
 */
export async function readEventStream(
  body: ReadableStream<Uint8Array>,
  accumulator: StreamAccumulator,
  signal?: AbortSignal,
  /** Fail as a timeout when no data arrives for this long (a stalled stream); 0 waits for ever. */
  idleTimeoutMs = 0,
): Promise<void> {
  let failure: unknown = null;
  const parser = createParser({
    onEvent: (event) => {
      if (failure || accumulator.done) return;
      try {
        accumulator.push(event.data);
      } catch (error) {
        failure = error;
      }
    },
  });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    while (!failure && !accumulator.done) {
      if (signal?.aborted) throw abortedBy(signal);
      const { value, done } = await readWithin(reader, idleTimeoutMs, signal).catch((error: unknown) => {
        // A reset or a cut body mid-answer is a network failure (retryable), not an unknown one.
        if (ChatModelError.is(error) || isAbortError(error)) throw error;
        throw new ChatModelError("network", `the connection closed in the middle of the streamed answer: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      });
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
    parser.feed(decoder.decode());
    // A last event without its blank line still counts.
    parser.feed("\n\n");
  } finally {
    reader.cancel().catch(() => undefined);
  }
  if (failure) throw failure;
}

/** The reason an aborted signal carries when it is a ChatModelError (a deadline), else a plain cancel. */
function abortedBy(signal: AbortSignal): ChatModelError {
  return ChatModelError.is(signal.reason) ? signal.reason : new ChatModelError("aborted", "the request was cancelled");
}

/** One read, given up when nothing arrives for `ms` or when `signal` aborts (whatever the body does). */
async function readWithin(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  ms: number,
  signal: AbortSignal | undefined,
): ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]> {
  if (!(ms > 0) && !signal) return reader.read();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stalled = new Promise<never>((_, reject) => {
    if (ms > 0) {
      timer = setTimeout(
        () => reject(new ChatModelError("timeout", `the provider stopped sending its streamed answer for ${Math.round(ms / 1000)} s`)),
        ms,
      );
    }
    if (signal) {
      onAbort = () => reject(abortedBy(signal));
      signal.addEventListener("abort", onAbort, { once: true });
    }
  });
  try {
    return await Promise.race([reader.read(), stalled]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}
