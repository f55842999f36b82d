import { deadlineSignal } from "../deadline.js";
import { z } from "zod";
import type { EmbeddingsConfig } from "./config.js";

/** Why an embedding request failed: `auth`/`bad_request` are not retried, the others are. */
export type EmbeddingErrorKind = "auth" | "bad_request" | "rate_limit" | "server_error" | "network" | "timeout" | "bad_answer" | "aborted";

export class EmbeddingError extends Error {
  override readonly name = "EmbeddingError";
  constructor(
    readonly kind: EmbeddingErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

const AnswerSchema = z.object({
  data: z.array(z.object({ index: z.number().int().min(0), embedding: z.array(z.number()) })),
});

/** Pauses before the retries of one request (like the summariser's retry of a server error, once more for the background). */
const RETRY_DELAYS_MS = [250, 1_000];

export interface EmbedOptions {
  /** Bound of each attempt (the query path uses a shorter one than the background). */
  timeoutMs: number;
  /** Attempts after the first (0 on the query path: it falls back to words instead of waiting). */
  retries: number;
  /** Stops the request and its retries (the engine closing). */
  signal?: AbortSignal;
}

/**
 * An OpenAI-compatible `/v1/embeddings` client: texts in, one vector per text, in order.
 * Each attempt is bounded; rate limits, 5xx answers, network errors and timeouts are retried
 * with a pause, authentication and request errors are not.
 */
export class EmbeddingClient {
  readonly #url: string;
  readonly #apiKey: string | undefined;

  constructor(
    readonly config: EmbeddingsConfig,
    env: Record<string, string | undefined> = process.env,
  ) {
    this.#url = config.base_url.replace(/\/+$/, "") + "/embeddings";
    this.#apiKey = config.api_key_env ? env[config.api_key_env] || undefined : undefined;
  }

  get model(): string {
    return this.config.model;
  }

  /** Where requests go (no key: it never leaves the headers). */
  get url(): string {
    return this.#url;
  }

  async embed(texts: readonly string[], options: EmbedOptions): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#once(texts, options.timeoutMs, options.signal);
      } catch (error) {
        if (options.signal?.aborted) throw new EmbeddingError("aborted", "embedding stopped: the engine is closing");
        const e = toEmbeddingError(error);
        if (e.kind === "auth" || e.kind === "bad_request" || attempt >= Math.min(options.retries, RETRY_DELAYS_MS.length)) throw e;
        await sleep(RETRY_DELAYS_MS[attempt]!, options.signal);
      }
    }
  }

  async #once(texts: readonly string[], timeoutMs: number, stop: AbortSignal | undefined): Promise<Float32Array[]> {
    const body: Record<string, unknown> = { model: this.config.model, input: texts, encoding_format: "float" };
    if (this.config.dimensions !== undefined) body.dimensions = this.config.dimensions;
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;
    const deadline = deadlineSignal(timeoutMs, stop);
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.#url, { method: "POST", headers, body: JSON.stringify(body), signal: deadline.signal });
      text = await response.text();
    } finally {
      deadline.clear();
    }
    if (!response.ok) throw httpError(response.status, text);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new EmbeddingError("bad_answer", `the embeddings endpoint answered ${response.status} with something that is not JSON`);
    }
    return this.#vectors(json, texts.length);
  }

  #vectors(json: unknown, expected: number): Float32Array[] {
    const parsed = AnswerSchema.safeParse(json);
    if (!parsed.success) throw new EmbeddingError("bad_answer", `the embeddings answer has no data[].embedding arrays: ${parsed.error.issues[0]?.message ?? ""}`);
    const out: Float32Array[] = new Array(expected);
    for (const d of parsed.data.data) if (d.index < expected) out[d.index] = Float32Array.from(d.embedding);
    for (let i = 0; i < expected; i++) {
      const v = out[i];
      if (!v) throw new EmbeddingError("bad_answer", `the embeddings answer has ${parsed.data.data.length} vectors for ${expected} inputs`);
      if (this.config.dimensions !== undefined && v.length !== this.config.dimensions) {
        throw new EmbeddingError("bad_answer", `the embeddings answer has ${v.length} dimensions; engines.lcm.embeddings.dimensions is ${this.config.dimensions}`);
      }
    }
    return out;
  }
}

function httpError(status: number, text: string): EmbeddingError {
  const detail = `HTTP ${status}: ${text.slice(0, 200).replace(/\s+/g, " ")}`;
  if (status === 401 || status === 403) return new EmbeddingError("auth", detail, status);
  if (status === 429) return new EmbeddingError("rate_limit", detail, status);
  if (status >= 500) return new EmbeddingError("server_error", detail, status);
  return new EmbeddingError("bad_request", detail, status);
}

function toEmbeddingError(error: unknown): EmbeddingError {
  if (error instanceof EmbeddingError) return error;
  const name = (error as { name?: string } | null)?.name;
  if (name === "TimeoutError" || name === "AbortError") return new EmbeddingError("timeout", "the embeddings endpoint did not answer in time");
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  const why = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  return new EmbeddingError("network", `the embeddings endpoint could not be reached (${why})`);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}
