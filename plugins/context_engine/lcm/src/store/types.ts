import type { Message } from "@context-engine/core";
import type { LcmSearchStore } from "./search-types.js";
import type { MaybePromise } from "./maybe-promise.js";
import type { ConversationRecord, StoredMessage, IngestOptions, IngestResult, MessageRange, ImportSliceResult, ImportSource } from "./message-types.js";
import type { SummaryKind, NewSummary, SummaryRecord, SummaryLineage, FrontierItemKey, FrontierItem, Frontier, FrontierReadOptions, FrontierReplace, SummaryBatchStep, CommitSummariesResult, CommitSummaryResult } from "./summary-types.js";

export type { MaybePromise } from "./maybe-promise.js";
export type * from "./message-types.js";
export type * from "./summary-types.js";

/**
 * The LCM store: the immutable record of every message, the summary DAG and
 * the active-context frontier of each conversation, in one SQLite file.
 *
 * `LcmStore` is the synchronous SQLite store; the engine and every module
 * written once for all drivers call `LcmStoreDriver`, the same operations
 * answering values or promises (PostgreSQL). Every write is one transaction;
 * a failed call changes nothing.
 */

export interface PayloadRecord {
  /** sha256 hex of the bytes. */
  hash: string;
  bytes: number;
  mime: string | null;
  /** UTF-8 text when the payload is text, else null. */
  text: string | null;
  /** Raw bytes (also set for text). */
  data: Buffer;
}

export interface StoreStats {
  path: string;
  schemaVersion: number;
  conversations: number;
  messages: number;
  summaries: number;
  payloads: number;
  /** Messages waiting for full-text indexing. */
  pendingIndex: number;
  /** Bytes of the database file(s) on disk (main + WAL). */
  fileBytes: number;
}

/** What a hard delete removed. */
export interface DeleteReport {
  conversationId: number;
  sessionId: string;
  messages: number;
  summaries: number;
  /** Payloads freed (those no other message still referenced). */
  payloads: number;
}

/** One conversation's footprint, for retention policies. */
export interface ConversationUsage {
  id: number;
  sessionId: string;
  updatedAt: number;
  /** UTF-8 bytes of every stored message text. */
  textBytes: number;
}

export interface OpenStoreOptions {
  /** Full path of the SQLite file. Wins over `dataDir`. `:memory:` is allowed (tests). */
  path?: string;
  /** Directory for `lcm.sqlite` (created if missing). Default: `./.lcm`. */
  dataDir?: string;
  /**
   * Secret redaction before storage. Default: on with default rules.
   * `false` disables it. See src/redact.
   */
  redaction?: import("../redact/types.js").RedactionConfig | false;
  /** Token counter for messages; default core's estimator. */
  countTokens?: (message: Message) => number;
  /** Text of one message part above which it is stored once as a payload (default 16 KiB). */
  payloadThresholdBytes?: number;
  /** SQLite busy timeout (ms), default 5000. */
  busyTimeoutMs?: number;
}

/** The synchronous SQLite store (`openLcmStore()`); the engine calls it as an `LcmStoreDriver`. */
export interface LcmStore {
  readonly path: string;
  readonly schemaVersion: number;
  /** False once closed (the pool reopens a closed handle). */
  readonly isOpen: boolean;
  close(): void;
  /** Run `fn` in one transaction (nested calls are savepoints). */
  transaction<T>(fn: () => T): T;

  // --- conversations ---
  /** Get or create the conversation of a session. */
  conversation(sessionId: string): ConversationRecord;
  findConversation(sessionId: string): ConversationRecord | null;
  getConversation(id: number): ConversationRecord | null;
  listConversations(): ConversationRecord[];

  // --- messages ---
  /** Idempotent ingestion; see `IngestOptions.mode`. */
  ingest(conversationId: number, messages: readonly Message[], options?: IngestOptions): IngestResult;
  /**
   * Store the next backlog messages of the conversation's pending import (a long history whose tail the
   * first ingest stored, see `IngestOptions.deferBacklog`) from `source`, a list that carries them, for
   * about `maxMs` (default: all). Null when no import is pending; `carried: false` (nothing stored) when
   * `source` does not show the imported history where its tail began. `maxRows` bounds the inserts too.
   */
  importSlice(conversationId: number, source: ImportSource, options?: { maxMs?: number; maxRows?: number }): ImportSliceResult | null;
  getMessage(id: number): StoredMessage | null;
  /** By ids, returned in the order asked; unknown ids are left out. */
  getMessagesByIds(ids: readonly number[]): StoredMessage[];
  getMessages(conversationId: number, range?: MessageRange): StoredMessage[];
  getMessageBySeq(conversationId: number, seq: number): StoredMessage | null;
  /** Sum of message tokens in a seq range (inclusive). */
  tokensInRange(conversationId: number, fromSeq: number, toSeq: number): number;
  /** The assistant message making tool call `toolCallId` and every stored result for it. */
  toolExchange(conversationId: number, toolCallId: string): StoredMessage[];

  // --- summaries ---
  /**
   * Insert a summary with its lineage and, optionally, replace a frontier run
   * with it, in one transaction. Idempotent: the same summary twice returns
   * the existing row.
   */
  commitSummary(summary: NewSummary, replace?: FrontierReplace): CommitSummaryResult;
  /**
   * `commitSummary` for each step in order, in ONE transaction: each step is
   * the same compare-and-swap on its run; the first step refused stops the
   * batch there and the steps before it stay committed (each a valid state).
   * A malformed step (a programming error) throws and commits nothing.
   */
  commitSummaries(steps: readonly SummaryBatchStep[]): CommitSummariesResult;
  getSummary(id: string): SummaryRecord | null;
  getSummaries(ids: readonly string[]): SummaryRecord[];
  listSummaries(conversationId: number, options?: { depth?: number; kind?: SummaryKind }): SummaryRecord[];
  lineage(summaryId: string): SummaryLineage;
  /** Original message ids under a summary, through the whole subtree, in seq order. */
  descendantMessageIds(summaryId: string): number[];
  /** Summaries that directly cover a message. */
  summariesCoveringMessage(messageId: number): string[];

  // --- frontier (active context) ---
  /** The whole frontier; with `shapes`, each message item carries its role and tool-call ids (one read for the planner). */
  getFrontier(conversationId: number, options?: FrontierReadOptions): Frontier;
  /**
   * The newest frontier items whose tokens add up to at most `maxTokens`
   * (at least `minItems`, default 0), in frontier order. O(result), not O(history).
   */
  getFrontierTail(conversationId: number, maxTokens: number, options?: { minItems?: number }): FrontierItem[];
  /** Replace the whole frontier. With `expectedVersion`, only when it still matches. */
  setFrontier(
    conversationId: number,
    items: readonly FrontierItemKey[],
    options?: { expectedVersion?: number },
  ): { ok: true; version: number } | { ok: false; version: number };
  /** Append items at the end of the frontier (ingest already does it for new messages). */
  appendToFrontier(conversationId: number, items: readonly FrontierItemKey[]): number;

  // --- payloads (large content, stored once) ---
  putPayload(data: string | Buffer, mime?: string | null): { hash: string; bytes: number };
  getPayload(hash: string): PayloadRecord | null;

  /**
   * Full-text index messages queued by `ingest(…, { index: "deferred" })`,
   * oldest first, stopping after `maxRows` or `maxMs` (default: all).
   */
  indexPending(options?: { maxRows?: number; maxMs?: number }): { indexed: number; remaining: number };

  /** Idle-time maintenance: merge index segments, return free pages, checkpoint. Never needed for correctness. */
  compact(): { fileBytes: number };

  stats(): StoreStats;

  // --- search, inspection and retention (written once in search/, tools/, retention/) ---
  /** The search operations of this store. */
  searchStore(): LcmSearchStore;
  /** Whether an item is in its conversation's active context now. */
  inFrontier(conversationId: number, item: FrontierItemKey): boolean;
  /** Every conversation with its stored size, least recently updated first. */
  conversationUsage(): ConversationUsage[];
  /** Hard delete of one conversation and everything only it references; null when unknown. */
  deleteConversation(conversationId: number): DeleteReport | null;
}

/** `S` with every method answering a value or a promise of it. */
export type Awaitable<S> = {
  [K in keyof S]: S[K] extends (...args: infer A) => infer R ? (...args: A) => MaybePromise<R> : S[K];
};

/**
 * The store as a driver implements it and as code written once for every
 * driver calls it: each call may be asynchronous (a PostgreSQL driver answers
 * with promises) or not (the SQLite store answers synchronously, so awaiting it
 * costs one microtask and no I/O wait). `transaction` is left out: a driver
 * keeps each write atomic on its own (see `commitSummary`, `ingest`).
 * The SQLite store (`LcmStore`) is one.
 */
export type LcmStoreDriver = Omit<Awaitable<LcmStore>, "transaction"> & {
  /**
   * Run one compaction pass of a conversation while no other process runs
   * one (PostgreSQL: an advisory lock held on a dedicated connection). Null,
   * without waiting, when another holder has it. `stillHeld()` answers false
   * once the lock (or its connection) is lost: the pass must publish nothing
   * more. A driver without it (SQLite: one process per file in practice, and
   * every publish is a compare-and-swap) runs `fn` directly.
   */
  withCompactionLock?<T>(conversationId: number, fn: (lock: CompactionLock) => Promise<T>): Promise<{ value: T } | null>;
  /**
   * Claim the background drain of a conversation for `owner` until `now + ttlMs` (renewing its own claim).
   * False while another owner's claim has not expired: that process computes the summaries, this one
   * waits. A claimer that crashed blocks nobody past its expiry. A driver without it lets every process drain.
   */
  claimDrain?(conversationId: number, owner: string, ttlMs: number, now?: number): MaybePromise<boolean>;
  /** Give up `owner`'s claim (no-op when it holds none). */
  releaseDrain?(conversationId: number, owner: string): MaybePromise<void>;
  /**
   * Copy what was written since the last call from the write-ahead log into the database now, at a moment the
   * caller chose (no hook waiting), so that a later hook's commit does not do it (SQLite: a passive checkpoint,
   * never waiting for another process). False when nothing was written since or another process was in the way.
   * Nothing is done while fewer than `minFrames` pages wait (a checkpoint per turn would copy the same hot pages
   * again and again). A driver without a log of its own to settle (PostgreSQL) leaves it out.
   */
  settleLog?(options?: { minFrames?: number }): MaybePromise<boolean>;
};

export interface CompactionLock {
  stillHeld(): Promise<boolean>;
}
