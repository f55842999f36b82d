import { setImmediate as yieldToEvents } from "node:timers/promises";
import type { Logger } from "@context-engine/core";
import type { LcmStoreDriver } from "../store/types.js";
import { EmbeddingClient, EmbeddingError } from "./client.js";
import type { EmbeddingsConfig } from "./config.js";
import { vectorIndexOf } from "./index-of.js";
import type { StoredVector, VectorIndex, VectorItem } from "./vectors.js";

/** Characters of one message or summary sent to the model: the start says what it is about, and endpoints cap input length. */
export const MAX_INPUT_CHARS = 4_000;
/** After a failure the provider is left alone this long (background and queries alike). */
const COOLDOWN_MS = 60_000;
/** Authentication failures: a configuration problem, asked again much later. */
const AUTH_COOLDOWN_MS = 600_000;

export interface RetrievalStatus {
  retrieval: "hybrid" | "words";
  model: string;
  endpoint: string;
  /** How neighbours are found (null until the store's vector table is ready). */
  vectors: string | null;
  /** Why a faster way of finding neighbours is not used (PostgreSQL without pgvector); absent when none. */
  vectorsNotice?: string;
  embedded: number;
  requests: number;
  failures: number;
  /** Set while the provider is being left alone after a failure: searches rank by words alone meanwhile. */
  degraded: { until: string; error: string } | null;
}

/**
 * Hybrid retrieval's moving part: embeds stored messages and summaries in the background
 * (kicked after ingest and compaction, never awaited by a hook), and the query of a search.
 * A failing provider is reported once per streak and left alone for a while; searches then
 * answer by words, and a message not yet embedded is still found by its words.
 */
export class Embeddings {
  readonly client: EmbeddingClient;
  #running: Promise<void> | null = null;
  #again = false;
  #watermarks = new WeakMap<object, { message: number; summary: number }>();
  #cleaned = new WeakSet<object>();
  #method: string | null = null;
  #notice: string | null = null;
  #embedded = 0;
  #requests = 0;
  #failures = 0;
  #blockedUntil = 0;
  #lastError: string | null = null;
  #reported = false;
  /** Aborted by `stop()`: in-flight requests end at once when the engine closes. */
  readonly #stop = new AbortController();

  constructor(
    readonly config: EmbeddingsConfig,
    private readonly logger: Logger,
    private readonly isClosed: () => boolean,
    env: Record<string, string | undefined> = process.env,
  ) {
    this.client = new EmbeddingClient(config, env);
  }

  get model(): string {
    return this.config.model;
  }

  status(): RetrievalStatus {
    const degraded = Date.now() < this.#blockedUntil && this.#lastError ? { until: new Date(this.#blockedUntil).toISOString(), error: this.#lastError } : null;
    return { retrieval: "hybrid", model: this.model, endpoint: this.client.url, vectors: this.#method, ...(this.#notice ? { vectorsNotice: this.#notice } : {}), embedded: this.#embedded, requests: this.#requests, failures: this.#failures, degraded };
  }

  /** Start embedding what is not embedded yet (off the caller's path); a running pass picks new rows up itself. */
  kick(store: LcmStoreDriver): void {
    if (this.isClosed() || Date.now() < this.#blockedUntil) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#drain(store).finally(() => {
      this.#running = null;
      if (this.#again && !this.isClosed()) {
        this.#again = false;
        this.kick(store);
      }
    });
  }

  /** Abort in-flight requests (the engine is closing); `idle()` then resolves promptly. */
  stop(): void {
    this.#stop.abort();
  }

  /** Resolves when the current pass (if any) has stopped. */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  /** The query's vector, or why there is none (the search then ranks by words). Never throws. */
  async queryVector(text: string): Promise<{ vector: Float32Array } | { error: string }> {
    if (Date.now() < this.#blockedUntil) return { error: `embedding provider unavailable (${this.#lastError ?? "failing"})` };
    try {
      this.#requests++;
      const [vector] = await this.client.embed([text.slice(0, MAX_INPUT_CHARS)], { timeoutMs: this.config.query_timeout_ms, retries: 0, signal: this.#stop.signal });
      this.#succeeded();
      return { vector: vector! };
    } catch (error) {
      this.#failed(error, "search");
      return { error: `embedding provider unavailable (${this.#lastError})` };
    }
  }

  async index(store: LcmStoreDriver): Promise<VectorIndex> {
    const index = await vectorIndexOf(store);
    this.#method = index.method;
    if (index.notice && index.notice !== this.#notice) {
      this.#notice = index.notice;
      this.logger.info(`lcm: ${index.notice}`);
    }
    return index;
  }

  async #drain(store: LcmStoreDriver): Promise<void> {
    try {
      const index = await this.index(store);
      if (!this.#cleaned.has(index)) {
        // The model changed since these were stored: they cannot be compared with the new ones.
        const dropped = await index.dropOtherModels(this.model);
        if (dropped > 0) this.logger.info(`lcm: embedding model is now ${this.model}: ${dropped} vectors of other models deleted; the history is embedded again`);
        this.#cleaned.add(index);
      }
      for (;;) {
        await yieldToEvents();
        if (this.isClosed()) return;
        this.#again = false;
        const mark = this.#watermarks.get(index) ?? { message: 0, summary: 0 };
        const items = await index.pending(this.model, mark, this.config.batch_size);
        if (items.length === 0) return;
        for (let i = 0; i < items.length; i += this.config.batch_size) {
          if (this.isClosed()) return;
          await this.#embedBatch(store, index, items.slice(i, i + this.config.batch_size));
        }
        for (const it of items) mark[it.kind] = Math.max(mark[it.kind], it.id);
        this.#watermarks.set(index, mark);
      }
    } catch (error) {
      if (!this.isClosed()) this.#failed(error, "background");
    }
  }

  async #embedBatch(store: LcmStoreDriver, index: VectorIndex, items: readonly VectorItem[]): Promise<void> {
    const texts = await textsOf(store, items);
    const todo = items.filter((it) => (texts.get(key(it)) ?? "").trim().length > 0);
    this.#requests++;
    const vectors = await this.client.embed(
      todo.map((it) => texts.get(key(it))!.slice(0, MAX_INPUT_CHARS)),
      { timeoutMs: this.config.timeout_ms, retries: 2, signal: this.#stop.signal },
    );
    this.#succeeded();
    const byKey = new Map(todo.map((it, i) => [key(it), vectors[i]!]));
    // Items without text get an empty vector: marked as done, never asked for again, never matched.
    const rows: StoredVector[] = items.map((it) => ({ ...it, vector: byKey.get(key(it)) ?? new Float32Array(0) }));
    if (this.isClosed()) return;
    await index.put(this.model, rows);
    this.#embedded += todo.length;
  }

  #succeeded(): void {
    if (this.#reported) this.logger.info("lcm: the embedding provider answers again");
    this.#reported = false;
  }

  #failed(error: unknown, where: "search" | "background"): void {
    this.#failures++;
    this.#lastError = error instanceof Error ? error.message : String(error);
    const auth = error instanceof EmbeddingError && error.kind === "auth";
    this.#blockedUntil = Date.now() + (auth ? AUTH_COOLDOWN_MS : COOLDOWN_MS);
    if (!this.#reported) {
      this.#reported = true;
      this.logger.warn(`lcm: embedding failed (${where}); lcm_grep ranks by words alone until it works again`, { error: this.#lastError });
    } else this.logger.debug("lcm: embedding failed again", { error: this.#lastError });
  }
}

function key(it: { kind: string; id: number }): string {
  return `${it.kind}:${it.id}`;
}

/** The text each item is searched by: a message's indexed body (content and tool calls), a summary's content. */
async function textsOf(store: LcmStoreDriver, items: readonly VectorItem[]): Promise<Map<string, string>> {
  const search = await store.searchStore();
  const out = new Map<string, string>();
  const messageIds = items.filter((i) => i.kind === "message").map((i) => i.id);
  const summaryIds = items.filter((i) => i.kind === "summary").map((i) => i.id);
  if (messageIds.length) for (const [id, body] of await search.messageBodies(messageIds)) out.set(`message:${id}`, body);
  if (summaryIds.length) for (const [id, row] of await search.summaryHits(summaryIds)) out.set(`summary:${id}`, row.content);
  return out;
}
