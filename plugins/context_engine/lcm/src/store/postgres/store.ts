import { HashMemo } from "../hash-memo.js";
import { createHash } from "node:crypto";
import { defaultTokenCounter, type Message, type Role } from "@context-engine/core";
import { createRedactor } from "../../redact/redactor.js";
import type { Redactor } from "../../redact/types.js";
import type {
  CommitSummariesResult,
  CommitSummaryResult,
  SummaryBatchStep,
  CompactionLock,
  ConversationRecord,
  ConversationUsage,
  DeleteReport,
  Frontier,
  FrontierReadOptions,
  FrontierItem,
  FrontierItemKey,
  FrontierReplace,
  ImportSliceResult,
  ImportSource,
  IngestOptions,
  LcmStoreDriver,
  IngestResult,
  MessageRange,
  NewSummary,
  OpenStoreOptions,
  PayloadRecord,
  StoredMessage,
  StoreStats,
  SummaryKind,
  SummaryLineage,
  SummaryRecord,
} from "../types.js";
import * as f from "./frontier.js";
import { conversationUsagePg, deleteConversationPg } from "./retention.js";
import { commitSummariesPg, commitSummaryPg } from "./summaries.js";
import { PostgresSearchStore } from "./search.js";
import type { LcmSearchStore } from "../search-types.js";
import { connectPostgres, type PostgresConnection } from "./connect.js";
import { ingestPg } from "./ingest.js";
import { importSlicePg } from "./import.js";
import type { SliceLimits } from "../import-plan.js";
import { restoreMessage } from "./layout.js";
import { CLAIM_DRAIN_SQL, RELEASE_DRAIN_SQL } from "../drain-claims.js";
import { withConversationLock } from "./locks.js";
import { migratePostgres, POSTGRES_SCHEMA_VERSION } from "./migrations.js";
import { PgStoreRest } from "./rest.js";
import type { PostgresStoreOptions } from "./options.js";
import { assertStorableSessionId, sessionIdProblem } from "../session-id.js";

/**
 * The PostgreSQL driver: every store operation answers with a promise. Rows
 * are indexed as they are written (generated tsvector columns), so nothing is
 * ever pending. Large bodies are kept inside the message (json, TOAST
 * compresses them) rather than split into payloads as on SQLite.
 */
export class PostgresLcmStore implements LcmStoreDriver {
  readonly schemaVersion = POSTGRES_SCHEMA_VERSION;
  readonly path: string;
  readonly #conn: PostgresConnection;
  readonly #redactor: Redactor;
  readonly #hashMemo = new HashMemo();
  readonly #countTokens: (m: Message) => number;
  #open = true;
  #search: PostgresSearchStore | null = null;
  /** Gives the dead rows of the rewritten tables back once writes pause (rest.ts). */
  readonly #rest: PgStoreRest;

  private constructor(conn: PostgresConnection, options: Pick<OpenStoreOptions, "redaction" | "countTokens">) {
    this.#conn = conn;
    this.path = `postgres schema ${conn.options.schema}`;
    this.#redactor = createRedactor(options.redaction === undefined ? {} : options.redaction);
    this.#countTokens = options.countTokens ?? ((m) => defaultTokenCounter.countMessage(m));
    this.#rest = new PgStoreRest(conn.pool, conn.options.schema);
  }

  /** `value` once the rest timer knows of the write that produced it. */
  #wrote<T>(value: T): T {
    this.#rest.wrote();
    return value;
  }

  /** The pool (search_path on the LCM schema) for modules beside the store, such as the vector index; not part of the store interface. */
  static poolOf(store: PostgresLcmStore): PostgresConnection["pool"] {
    return store.#conn.pool;
  }

  /** Connect, migrate, and return the store. */
  static async open(pg: PostgresStoreOptions, options: Pick<OpenStoreOptions, "redaction" | "countTokens"> = {}): Promise<PostgresLcmStore> {
    const conn = await connectPostgres(pg);
    try {
      if (!conn.options.createSchema) await requireSchema(conn);
      await migratePostgres(conn);
    } catch (error) {
      await conn.close();
      throw error;
    }
    return new PostgresLcmStore(conn, options);
  }

  get isOpen(): boolean {
    return this.#open;
  }

  async close(): Promise<void> {
    if (!this.#open) return;
    this.#open = false;
    await this.#rest.stop();
    await this.#conn.close();
  }

  // ---------------------------------------------------------------- conversations

  async conversation(sessionId: string): Promise<ConversationRecord> {
    assertStorableSessionId(sessionId);
    const now = Date.now();
    const added = await this.#conn.pool.query("INSERT INTO conversations (session_id, created_at, updated_at) VALUES ($1, $2, $2) ON CONFLICT (session_id) DO NOTHING", [sessionId, now]);
    if (added.rowCount) this.#rest.wrote();
    return (await this.findConversation(sessionId))!;
  }

  async findConversation(sessionId: string): Promise<ConversationRecord | null> {
    // No stored conversation can have such an id; asking PostgreSQL would fail on the NUL byte.
    if (sessionIdProblem(sessionId) !== null) return null;
    const { rows } = await this.#conn.pool.query("SELECT * FROM conversations WHERE session_id = $1", [sessionId]);
    return rows[0] ? toConversation(rows[0]) : null;
  }

  async getConversation(id: number): Promise<ConversationRecord | null> {
    const { rows } = await this.#conn.pool.query("SELECT * FROM conversations WHERE id = $1", [id]);
    return rows[0] ? toConversation(rows[0]) : null;
  }

  async listConversations(): Promise<ConversationRecord[]> {
    const { rows } = await this.#conn.pool.query("SELECT * FROM conversations ORDER BY id");
    return rows.map(toConversation);
  }

  // ---------------------------------------------------------------- ingest

  /** Idempotent ingest; see `ingestPg` (the conversation row is locked, so concurrent writers take turns). */
  async ingest(conversationId: number, messages: readonly Message[], options: IngestOptions = {}): Promise<IngestResult> {
    return this.#wrote(await this.#conn.transaction((c) => ingestPg(c, { redactor: this.#redactor, countTokens: this.#countTokens, hashMemo: this.#hashMemo }, conversationId, messages, options)));
  }

  // ---------------------------------------------------------------- messages

  /** One slice of the conversation's pending import (see `LcmStore.importSlice`). */
  async importSlice(conversationId: number, source: ImportSource, options: SliceLimits = {}): Promise<ImportSliceResult | null> {
    return this.#wrote(await this.#conn.transaction((c) => importSlicePg(c, { redactor: this.#redactor, countTokens: this.#countTokens, hashMemo: this.#hashMemo }, conversationId, source, options)));
  }

  async getMessage(id: number): Promise<StoredMessage | null> {
    const { rows } = await this.#conn.pool.query("SELECT * FROM messages WHERE id = $1", [id]);
    return rows[0] ? toStored(rows[0]) : null;
  }

  async getMessagesByIds(ids: readonly number[]): Promise<StoredMessage[]> {
    if (!ids.length) return [];
    const { rows } = await this.#conn.pool.query("SELECT * FROM messages WHERE id = ANY($1::bigint[])", [ids]);
    const byId = new Map(rows.map((r) => [Number(r.id), toStored(r)]));
    return ids.map((id) => byId.get(id)).filter((m): m is StoredMessage => m !== undefined);
  }

  async getMessages(conversationId: number, range: MessageRange = {}): Promise<StoredMessage[]> {
    const { rows } = await this.#conn.pool.query(
      `SELECT * FROM messages WHERE conversation_id = $1 AND seq BETWEEN $2 AND $3 ORDER BY seq ${range.reverse ? "DESC" : "ASC"} LIMIT $4`,
      [conversationId, range.fromSeq ?? 0, range.toSeq ?? 2_147_483_647, range.limit ?? null],
    );
    return rows.map(toStored);
  }

  async getMessageBySeq(conversationId: number, seq: number): Promise<StoredMessage | null> {
    const { rows } = await this.#conn.pool.query("SELECT * FROM messages WHERE conversation_id = $1 AND seq = $2", [conversationId, seq]);
    return rows[0] ? toStored(rows[0]) : null;
  }

  async tokensInRange(conversationId: number, fromSeq: number, toSeq: number): Promise<number> {
    const { rows } = await this.#conn.pool.query("SELECT COALESCE(sum(tokens), 0) AS t FROM messages WHERE conversation_id = $1 AND seq BETWEEN $2 AND $3", [conversationId, fromSeq, toSeq]);
    return Number(rows[0].t);
  }

  async toolExchange(conversationId: number, toolCallId: string): Promise<StoredMessage[]> {
    const { rows } = await this.#conn.pool.query(
      "SELECT * FROM messages WHERE conversation_id = $1 AND ($2 = ANY(tool_call_ids) OR tool_call_id = $2) ORDER BY seq",
      [conversationId, toolCallId],
    );
    return rows.map(toStored);
  }

  // ---------------------------------------------------------------- payloads

  async putPayload(data: string | Buffer, mime: string | null = null): Promise<{ hash: string; bytes: number }> {
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    const hash = createHash("sha256").update(bytes).digest("hex");
    await this.#conn.pool.query("INSERT INTO payloads (hash, bytes, mime, is_text, data) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (hash) DO NOTHING", [
      hash,
      bytes.length,
      mime,
      typeof data === "string",
      bytes,
    ]);
    return { hash, bytes: bytes.length };
  }

  async getPayload(hash: string): Promise<PayloadRecord | null> {
    const { rows } = await this.#conn.pool.query("SELECT * FROM payloads WHERE hash = $1", [hash]);
    const r = rows[0];
    if (!r) return null;
    const data = r.data as Buffer;
    return { hash: r.hash, bytes: r.bytes, mime: r.mime, text: r.is_text ? data.toString("utf8") : null, data };
  }

  // ---------------------------------------------------------------- summaries and frontier

  async commitSummary(summary: NewSummary, replace?: FrontierReplace): Promise<CommitSummaryResult> {
    return this.#wrote(await this.#conn.transaction((c) => commitSummaryPg(c, summary, replace)));
  }

  async commitSummaries(steps: readonly SummaryBatchStep[]): Promise<CommitSummariesResult> {
    return this.#wrote(await this.#conn.transaction((c) => commitSummariesPg(c, steps)));
  }

  async getSummary(id: string): Promise<SummaryRecord | null> {
    return (await f.getSummariesPg(this.#conn.pool, [id]))[0] ?? null;
  }

  getSummaries(ids: readonly string[]): Promise<SummaryRecord[]> {
    return f.getSummariesPg(this.#conn.pool, ids);
  }

  listSummaries(conversationId: number, options: { depth?: number; kind?: SummaryKind } = {}): Promise<SummaryRecord[]> {
    return f.listSummariesPg(this.#conn.pool, conversationId, options);
  }

  lineage(summaryId: string): Promise<SummaryLineage> {
    return f.lineagePg(this.#conn.pool, summaryId);
  }

  descendantMessageIds(summaryId: string): Promise<number[]> {
    return f.descendantMessageIdsPg(this.#conn.pool, summaryId);
  }

  summariesCoveringMessage(messageId: number): Promise<string[]> {
    return f.summariesCoveringMessagePg(this.#conn.pool, messageId);
  }

  getFrontier(conversationId: number, options: FrontierReadOptions = {}): Promise<Frontier> {
    return f.getFrontierPg(this.#conn.pool, conversationId, options.shapes === true, options.afterOrdinal ?? -1);
  }

  /** One compaction pass at a time per conversation across every process (a session advisory lock; see locks.ts). */
  withCompactionLock<T>(conversationId: number, fn: (lock: CompactionLock) => Promise<T>): Promise<{ value: T } | null> {
    return withConversationLock(this.#conn, conversationId, fn);
  }

  async claimDrain(conversationId: number, owner: string, ttlMs: number, now = Date.now()): Promise<boolean> {
    return this.#wrote((await this.#conn.pool.query(CLAIM_DRAIN_SQL, [conversationId, owner, now + ttlMs, now])).rows.length > 0);
  }

  async releaseDrain(conversationId: number, owner: string): Promise<void> {
    this.#wrote(await this.#conn.pool.query(RELEASE_DRAIN_SQL, [conversationId, owner]));
  }

  getFrontierTail(conversationId: number, maxTokens: number, options: { minItems?: number } = {}): Promise<FrontierItem[]> {
    return f.getFrontierTailPg(this.#conn.pool, conversationId, maxTokens, options.minItems ?? 0);
  }

  async setFrontier(conversationId: number, items: readonly FrontierItemKey[], options: { expectedVersion?: number } = {}) {
    return this.#wrote(await this.#conn.transaction((c) => f.setFrontierPg(c, conversationId, items, options.expectedVersion)));
  }

  async appendToFrontier(conversationId: number, items: readonly FrontierItemKey[]): Promise<number> {
    return this.#wrote(await this.#conn.transaction((c) => f.appendToFrontierPg(c, conversationId, items)));
  }

  inFrontier(conversationId: number, item: FrontierItemKey): Promise<boolean> {
    return f.inFrontierPg(this.#conn.pool, conversationId, item);
  }

  searchStore(): LcmSearchStore {
    this.#search ??= new PostgresSearchStore(this.#conn.pool);
    return this.#search;
  }

  // ---------------------------------------------------------------- maintenance

  indexPending(): { indexed: number; remaining: number } {
    return { indexed: 0, remaining: 0 };
  }

  /** The rest work now (dead rows of the rewritten tables given back, rest.ts); reports the schema's size. */
  async compact(): Promise<{ fileBytes: number }> {
    await this.#rest.now();
    return { fileBytes: (await this.stats()).fileBytes };
  }

  async stats(): Promise<StoreStats> {
    const { rows } = await this.#conn.pool.query(
      `SELECT (SELECT count(*) FROM conversations)::int AS conversations, (SELECT count(*) FROM messages)::int AS messages,
         (SELECT count(*) FROM summaries)::int AS summaries, (SELECT count(*) FROM payloads)::int AS payloads,
         (SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = $1 AND c.relkind = 'r')::bigint AS bytes`,
      [this.#conn.options.schema],
    );
    const r = rows[0];
    return { path: this.path, schemaVersion: this.schemaVersion, conversations: r.conversations, messages: r.messages, summaries: r.summaries, payloads: r.payloads, pendingIndex: 0, fileBytes: Number(r.bytes) };
  }

  // ---------------------------------------------------------------- retention

  conversationUsage(): Promise<ConversationUsage[]> {
    return conversationUsagePg(this.#conn);
  }

  async deleteConversation(conversationId: number): Promise<DeleteReport | null> {
    return this.#wrote(await deleteConversationPg(this.#conn, conversationId));
  }
}

function toConversation(r: Record<string, string | number>): ConversationRecord {
  return {
    id: Number(r.id),
    sessionId: String(r.session_id),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    messageCount: Number(r.message_count),
    lastSeq: Number(r.last_seq),
    messageTokens: Number(r.message_tokens),
    frontierVersion: Number(r.frontier_version),
    frontierTokens: Number(r.frontier_tokens),
    frontierCount: Number(r.frontier_count),
  };
}

function toStored(r: Record<string, unknown>): StoredMessage {
  return {
    id: Number(r.id),
    conversationId: Number(r.conversation_id),
    seq: Number(r.seq),
    role: r.role as Role,
    message: restoreMessage(r.message, { body: String(r.body), role: String(r.role), toolCallId: (r.tool_call_id as string | null) ?? null }),
    text: String(r.body),
    tokens: Number(r.tokens),
    createdAt: Number(r.created_at),
    hash: String(r.hash),
    toolCallIds: r.tool_call_ids as string[],
    toolCallId: (r.tool_call_id as string | null) ?? null,
    redacted: r.redacted === true,
  };
}

/** A reader's open: the schema and its tables must exist already; nothing is created. */
async function requireSchema(conn: Awaited<ReturnType<typeof connectPostgres>>): Promise<void> {
  const { schema } = conn.options;
  const { rows } = await conn.pool.query<{ found: string | null }>("SELECT to_regclass($1)::text AS found", [`${schema}.lcm_migrations`]);
  if (rows[0]?.found) return;
  const error = new Error(`no LCM store in schema "${schema}" of ${conn.description}: nothing has been stored there`);
  (error as Error & { code?: string }).code = "LCM_NO_SCHEMA";
  throw error;
}
