import { CLAIM_DRAIN_SQL, RELEASE_DRAIN_SQL, sqliteParams } from "../drain-claims.js";
import { HashMemo } from "../hash-memo.js";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import { defaultTokenCounter } from "@context-engine/core";
import type { Message } from "@context-engine/core";
import { createRedactor } from "../../redact/redactor.js";
import type { Redactor } from "../../redact/types.js";
import { pinNativeObjects } from "../native-pin.js";
import type { LcmSearchStore } from "../search-types.js";
import type {
  CommitSummariesResult,
  CommitSummaryResult,
  SummaryBatchStep,
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
  IngestResult,
  LcmStore,
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
import { putPayload, type SqliteContext } from "./context.js";
import { conversationUsageRows, deleteConversationRows } from "./delete.js";
import * as fr from "./frontier.js";
import { AUTO_DEFER_ABOVE, ingestRows } from "./ingest.js";
import { importSliceRows } from "./import.js";
import type { SliceLimits } from "../import-plan.js";
import * as maint from "./maintenance.js";
import * as msg from "./messages.js";
import { prepareStatements } from "./prepare.js";
import { toConversation, type ConversationRow } from "./rows.js";
import { migrate, SCHEMA_VERSION } from "./schema.js";
import { searchStoreOf } from "./search.js";
import * as sum from "./summaries.js";
import { StoreRest } from "./rest.js";
import { openWal, settleWal, walFramesPending } from "./wal.js";
import { assertStorableSessionId, sessionIdProblem } from "../session-id.js";

const DEFAULT_PAYLOAD_THRESHOLD = 16 * 1024;

/** Resolve the database path from the options. */
export function resolveStorePath(options: OpenStoreOptions): string {
  if (options.path) return options.path;
  return join(options.dataDir ?? ".lcm", "lcm.sqlite");
}

/** Open (creating and migrating as needed) the LCM store. */
export function openLcmStore(options: OpenStoreOptions = {}): LcmStore {
  return new SqliteLcmStore(options);
}

/** Open the file with the store's settings and migrate it; closes it again on failure. */
function openDatabase(path: string, busyTimeoutMs: number): Database.Database {
  const db = pinNativeObjects(new Database(path, { timeout: busyTimeoutMs }));
  try {
    const fresh = (db.prepare("SELECT count(*) AS n FROM sqlite_master").get() as { n: number }).n === 0;
    if (fresh) {
      // Both only take effect before the first table. 16 KiB pages waste less space around
      // variable-sized rows (long tool output) than the 4 KiB default: about 1.9x instead of 2.1x raw text.
      db.pragma("page_size = 16384");
      db.pragma("auto_vacuum = INCREMENTAL");
    }
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    // The -wal file: 256-page checkpoints, emptied when the store rests (wal.ts).
    openWal(db);
    db.pragma("foreign_keys = ON");
    db.pragma("temp_store = MEMORY");
    db.pragma("cache_size = -32000");
    // Reads through a memory map: no copy per page on the search and assembly paths.
    db.pragma("mmap_size = 268435456");
    migrate(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * The SQLite store: construction, lifecycle and delegation. Each concern lives
 * in its own module over a shared `SqliteContext` (prepare.ts statements,
 * ingest.ts, messages.ts, summaries.ts, frontier.ts, maintenance.ts); every
 * write runs in one immediate transaction opened here.
 */
export class SqliteLcmStore implements LcmStore {
  readonly path: string;
  readonly schemaVersion = SCHEMA_VERSION;
  readonly redactor: Redactor;
  /** The raw handle and statements: only for the SQLite driver's own modules (see `sqliteHandle`). */
  readonly #ctx: SqliteContext;
  /** Merges the full-text segments and empties the -wal file once writes pause (rest.ts). */
  readonly #rest: StoreRest;
  /** Written since the last `settleLog`. */
  #unsettled = false;

  constructor(options: OpenStoreOptions = {}) {
    this.path = resolveStorePath(options);
    if (this.path !== ":memory:") mkdirSync(dirname(this.path), { recursive: true });
    this.redactor = createRedactor(options.redaction === undefined ? {} : options.redaction);
    const db = openDatabase(this.path, options.busyTimeoutMs ?? 5000);
    let s;
    try {
      s = prepareStatements(db);
    } catch (error) {
      db.close();
      throw error;
    }
    this.#rest = new StoreRest(db);
    this.#ctx = {
      db,
      s,
      redactor: this.redactor,
      countTokens: options.countTokens ?? ((m: Message) => defaultTokenCounter.countMessage(m)),
      payloadThreshold: options.payloadThresholdBytes ?? DEFAULT_PAYLOAD_THRESHOLD,
      backlog: false,
      hashMemo: new HashMemo(),
    };
  }

  /** The driver's modules reach the handle through `sqliteHandle`; it is not part of the store interface. */
  static handleOf(store: SqliteLcmStore): Database.Database {
    return store.#ctx.db;
  }

  get isOpen(): boolean {
    return this.#ctx.db.open;
  }

  close(): void {
    this.#rest.stop();
    if (!this.#ctx.db.open) return;
    try {
      this.#ctx.db.pragma("optimize");
    } catch {
      // optimize is advisory
    }
    this.#ctx.db.close();
  }

  transaction<T>(fn: () => T): T {
    return this.#ctx.db.transaction(fn)();
  }

  /** `fn` in one IMMEDIATE transaction (the write lock taken up front, so a concurrent writer waits instead of failing mid-way). */
  #write<T>(fn: () => T): T {
    const out = this.#ctx.db.transaction(fn).immediate();
    this.#wrote();
    return out;
  }

  #wrote(): void {
    this.#unsettled = true;
    this.#rest.wrote();
  }

  /** Whether something was written since the last `settleLog` that settled. */
  get logUnsettled(): boolean {
    return this.#unsettled;
  }

  /**
   * A passive checkpoint of what was written since the last one (wal.ts `settleWal`); false when nothing was or
   * nothing waits in the log any more, or when fewer than `minFrames` pages wait there (checked in the -shm header,
   * `walFramesPending`).
   */
  settleLog(options: { minFrames?: number } = {}): boolean {
    if (!this.#unsettled || !this.#ctx.db.open || this.path === ":memory:") return false;
    const pending = walFramesPending(this.path);
    // SQLite's own checkpoint inside a commit, or the store's rest, copied it all already.
    if (pending === 0) {
      this.#unsettled = false;
      return false;
    }
    const min = options.minFrames ?? 0;
    if (min > 0 && (pending ?? min) < min) return false;
    const settled = settleWal(this.#ctx.db);
    // A reader of another process in the way: the next call tries again.
    if (settled) this.#unsettled = false;
    return settled;
  }

  // ---------------------------------------------------------------- conversations

  conversation(sessionId: string): ConversationRecord {
    assertStorableSessionId(sessionId);
    const s = this.#ctx.s;
    const found = s.convBySession.get(sessionId) as ConversationRow | undefined;
    if (found) return toConversation(found);
    const now = Date.now();
    s.insertConv.run(sessionId, now, now);
    return toConversation(s.convBySession.get(sessionId) as ConversationRow);
  }

  findConversation(sessionId: string): ConversationRecord | null {
    if (sessionIdProblem(sessionId) !== null) return null;
    const r = this.#ctx.s.convBySession.get(sessionId) as ConversationRow | undefined;
    return r ? toConversation(r) : null;
  }

  getConversation(id: number): ConversationRecord | null {
    const r = this.#ctx.s.convById.get(id) as ConversationRow | undefined;
    return r ? toConversation(r) : null;
  }

  listConversations(): ConversationRecord[] {
    return (this.#ctx.s.listConvs.all() as ConversationRow[]).map(toConversation);
  }

  // ---------------------------------------------------------------- messages

  ingest(conversationId: number, messages: readonly Message[], options: IngestOptions = {}): IngestResult {
    const result = this.#write(() => ingestRows(this.#ctx, conversationId, messages, options));
    // A small ingest pays a little of an earlier bulk import's indexing backlog.
    if (this.#ctx.backlog && (options.index ?? "auto") === "auto" && options.drainBacklog !== false && result.appended <= AUTO_DEFER_ABOVE) {
      this.indexPending({ maxMs: 10 });
    }
    return result;
  }

  getMessage(id: number): StoredMessage | null {
    return msg.getMessage(this.#ctx, id);
  }

  getMessagesByIds(ids: readonly number[]): StoredMessage[] {
    return msg.getMessagesByIds(this.#ctx, ids);
  }

  getMessages(conversationId: number, range: MessageRange = {}): StoredMessage[] {
    return msg.getMessages(this.#ctx, conversationId, range);
  }

  getMessageBySeq(conversationId: number, seq: number): StoredMessage | null {
    return msg.getMessageBySeq(this.#ctx, conversationId, seq);
  }

  tokensInRange(conversationId: number, fromSeq: number, toSeq: number): number {
    return msg.tokensInRange(this.#ctx, conversationId, fromSeq, toSeq);
  }

  toolExchange(conversationId: number, toolCallId: string): StoredMessage[] {
    return msg.toolExchange(this.#ctx, conversationId, toolCallId);
  }

  // ---------------------------------------------------------------- summaries

  commitSummary(summary: NewSummary, replace?: FrontierReplace): CommitSummaryResult {
    return this.#write(() => sum.commitSummaryRows(this.#ctx, summary, replace));
  }

  commitSummaries(steps: readonly SummaryBatchStep[]): CommitSummariesResult {
    return this.#write(() => sum.commitSummariesRows(this.#ctx, steps));
  }

  getSummary(id: string): SummaryRecord | null {
    return sum.getSummary(this.#ctx, id);
  }

  getSummaries(ids: readonly string[]): SummaryRecord[] {
    return sum.getSummaries(this.#ctx, ids);
  }

  listSummaries(conversationId: number, options: { depth?: number; kind?: SummaryKind } = {}): SummaryRecord[] {
    return sum.listSummaries(this.#ctx, conversationId, options);
  }

  lineage(summaryId: string): SummaryLineage {
    return sum.lineage(this.#ctx, summaryId);
  }

  descendantMessageIds(summaryId: string): number[] {
    return sum.descendantMessageIds(this.#ctx, summaryId);
  }

  summariesCoveringMessage(messageId: number): string[] {
    return sum.summariesCoveringMessage(this.#ctx, messageId);
  }

  // ---------------------------------------------------------------- frontier

  getFrontier(conversationId: number, options: FrontierReadOptions = {}): Frontier {
    return fr.getFrontier(this.#ctx, conversationId, options.shapes === true, options.afterOrdinal ?? -1);
  }

  getFrontierTail(conversationId: number, maxTokens: number, options: { minItems?: number } = {}): FrontierItem[] {
    return fr.getFrontierTail(this.#ctx, conversationId, maxTokens, options.minItems ?? 0);
  }

  setFrontier(
    conversationId: number,
    items: readonly FrontierItemKey[],
    options: { expectedVersion?: number } = {},
  ): { ok: true; version: number } | { ok: false; version: number } {
    return this.#write(() => fr.setFrontierRows(this.#ctx, conversationId, items, options.expectedVersion));
  }

  appendToFrontier(conversationId: number, items: readonly FrontierItemKey[]): number {
    return this.#write(() => fr.appendToFrontierRows(this.#ctx, conversationId, items));
  }

  inFrontier(conversationId: number, item: FrontierItemKey): boolean {
    return fr.inFrontier(this.#ctx, conversationId, item);
  }

  claimDrain(conversationId: number, owner: string, ttlMs: number, now = Date.now()): boolean {
    return this.#write(() => this.#ctx.db.prepare(sqliteParams(CLAIM_DRAIN_SQL)).get(conversationId, owner, now + ttlMs, now) !== undefined);
  }

  releaseDrain(conversationId: number, owner: string): void {
    this.#write(() => this.#ctx.db.prepare(sqliteParams(RELEASE_DRAIN_SQL)).run(conversationId, owner));
  }

  // ---------------------------------------------------------------- payloads, indexing, maintenance

  putPayload(data: string | Buffer, mime: string | null = null): { hash: string; bytes: number } {
    const hash = putPayload(this.#ctx, data, mime);
    return { hash, bytes: typeof data === "string" ? Buffer.byteLength(data) : data.length };
  }

  getPayload(hash: string): PayloadRecord | null {
    return maint.getPayload(this.#ctx, hash);
  }

  /** One slice of the conversation's pending import from `source` (see import-plan.ts); null when none is pending. */
  importSlice(conversationId: number, source: ImportSource, options: SliceLimits = {}): ImportSliceResult | null {
    return this.#write(() => importSliceRows(this.#ctx, conversationId, source, options));
  }

  indexPending(options: { maxRows?: number; maxMs?: number } = {}): { indexed: number; remaining: number } {
    const r = maint.indexPending(this.#ctx, options);
    if (r.indexed > 0) this.#wrote();
    return r;
  }

  compact(): { fileBytes: number } {
    return maint.compact(this.#ctx, this.path);
  }

  stats(): StoreStats {
    return maint.stats(this.#ctx, this.path, this.schemaVersion);
  }

  // ---------------------------------------------------------------- search and retention

  searchStore(): LcmSearchStore {
    return searchStoreOf(this);
  }

  conversationUsage(): ConversationUsage[] {
    return conversationUsageRows(this.#ctx.db);
  }

  deleteConversation(conversationId: number): DeleteReport | null {
    const r = deleteConversationRows(this.#ctx.db, conversationId);
    this.#wrote();
    return r;
  }
}

/** The better-sqlite3 handle of a SQLite store (driver modules and SQLite-only tests). */
export function sqliteHandle(store: LcmStore): Database.Database {
  if (store instanceof SqliteLcmStore) return SqliteLcmStore.handleOf(store);
  throw new Error("not a SQLite LCM store");
}
