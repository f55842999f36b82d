import type { Message, Role } from "@context-engine/core";
import type { LcmSearchStore } from "./search-types.js";
import type { MaybePromise } from "./maybe-promise.js";

export type { MaybePromise } from "./maybe-promise.js";

/**
 * The LCM store: the immutable record of every message, the summary DAG and
 * the active-context frontier of each conversation, in one SQLite file.
 *
 * `LcmStore` is the synchronous SQLite store; the engine and every module
 * written once for all drivers call `LcmStoreDriver`, the same operations
 * answering values or promises (PostgreSQL). Every write is one transaction;
 * a failed call changes nothing.
 */

/** A conversation, keyed by the host's session id. */
export interface ConversationRecord {
  /** Internal numeric id (stable for the life of the row). */
  id: number;
  sessionId: string;
  createdAt: number;
  updatedAt: number;
  /** Number of stored messages; `lastSeq + 1` (seq starts at 0). */
  messageCount: number;
  /** Highest stored seq, -1 when empty. */
  lastSeq: number;
  /** Sum of `tokens` over every stored message. */
  messageTokens: number;
  /** Bumped on every frontier change (append, replace, set). */
  frontierVersion: number;
  /** Sum of `tokens` over the current frontier items. */
  frontierTokens: number;
  /** Number of items in the current frontier. */
  frontierCount: number;
}

/** One stored message, rebuilt in OpenAI format. Immutable once stored. */
export interface StoredMessage {
  /** Global row id (unique across conversations). */
  id: number;
  conversationId: number;
  /** Position in the conversation, from 0, gap-free, in ingest order. */
  seq: number;
  role: Role;
  /** The message as the provider expects it (tool calls and parts restored as structure). */
  message: Message;
  /** Flat searchable text (content text, tool-call names and arguments). Already redacted. */
  text: string;
  /** Token count of the (redacted) message, as counted at ingest. */
  tokens: number;
  /** Epoch milliseconds (from `IngestOptions.timestamps`/`now`, else ingest time). */
  createdAt: number;
  /** Identity hash (hex) of the original message: role, content, tool calls, tool_call_id, name. */
  hash: string;
  /** Ids of the tool calls this assistant message makes (empty otherwise). */
  toolCallIds: string[];
  /** For role `tool`: the call this result answers. */
  toolCallId: string | null;
  /** Whether any secret was redacted from it before storage. */
  redacted: boolean;
}

/** Where a writer's list stood after an ingest: the input it ended on, and a fingerprint of it and of its neighbours. */
export interface WriterPosition {
  index: number;
  fingerprint: string;
  /**
   * How many messages the conversation held right after the ingest that set this position (kept in
   * memory only; the store records index and fingerprint). What was stored after it, right after the
   * position's own message, is what the same host stored since by another path (a named turn).
   */
  storedCount?: number;
}

export interface IngestOptions {
  /**
   * Messages to ignore because the engine itself produced them (rendered
   * summaries, recall notes). They are never stored (see README "Every message once").
   */
  isSynthetic?: (message: Message, index: number) => boolean;
  /**
   * `align` (default): the list is a host's transcript as it is now (possibly
   * compacted by the host, possibly behind the store, possibly one of several
   * writers'); what is not provably stored is appended, never skipped. With a
   * `position` that still holds, only what follows it is looked at.
   * `append`: every non-synthetic message is new (the caller knows).
   * `stored`: every non-synthetic message is stored already (the engine's own output, assembled from
   * the store): nothing is added, and the list's end is recorded as where this writer stands, so the
   * host's next list (that output plus a turn) costs O(new messages).
   */
  mode?: "align" | "append" | "stored";
  /**
   * The writer's positions from its previous ingests (`IngestResult.position`), checked against the
   * list, never trusted blindly: the furthest one that still holds decides where new inputs start.
   */
  positions?: readonly WriterPosition[];
  /**
   * An idempotency key for the inputs from `keyFrom` on (a host's turn id). A
   * key already stored for the conversation means those inputs are kept
   * already: they are not stored again, also after a restart or from another process.
   */
  key?: string;
  keyFrom?: number;
  /**
   * Stored ids this writer stored itself. Given, short messages ("", "ok") matched to anything else among
   * new messages, at the list's start or inside a keyed turn are stored again rather than risk skipping
   * another writer's equal message. Absent, the caller is the conversation's only writer and the ordered
   * match is trusted.
   */
  seenIds?: { has(id: number): boolean };
  /** The host's own id per input (null where none): an input whose id is stored is kept already. */
  messageKeys?: ReadonlyArray<string | null | undefined>;
  /** The input index of `messageKeys[0]` (default 0): a turn's ids without an array the length of the list. */
  messageKeysFrom?: number;
  /** Epoch ms for the new messages (default `Date.now()`). */
  now?: number;
  /**
   * Per-input-index epoch ms, when the source has real timestamps. Overrides `now`. Read only for the
   * inputs stored (O(new messages)); an entry that is not a time from 1970 to 2200 falls back to `now`.
   */
  timestamps?: ReadonlyArray<number | null | undefined>;
  /** Append the new messages to the frontier (default true). */
  appendToFrontier?: boolean;
  /**
   * `now`: full-text index the new messages in the same transaction.
   * `deferred`: queue them; they are indexed by `indexPending()` (bounded
   * slices, e.g. between turns) and always before a search runs, so a bulk
   * import never stalls on indexing.
   * `auto` (default): `now` for up to 500 new messages, else `deferred`; a
   * small ingest also drains up to ~10 ms of an earlier backlog, unless
   * `drainBacklog` is false (the caller drains it with `indexPending()`).
   */
  index?: "auto" | "now" | "deferred";
  drainBacklog?: boolean;
}

export interface IngestResult {
  conversationId: number;
  /** Messages newly stored by this call. */
  appended: number;
  /** Their stored ids, in order. */
  appendedIds: number[];
  /** Input messages recognised as already stored (with a writer position: every input up to it). */
  alreadyStored: number;
  /** Input messages skipped as synthetic (among those looked at). */
  synthetic: number;
  /**
   * Stored message id for each input index: the new ones, and the known ones
   * found by reconciling or by key; null for synthetic messages and for
   * inputs before a writer position (not looked at).
   */
  ids: Array<number | null>;
  /** The same, sparse: input index -> stored id, for the inputs known (cheap for a long list). */
  knownIds: ReadonlyMap<number, number>;
  /** Seq range of the appended messages, or null when nothing was appended. */
  firstSeq: number | null;
  lastSeq: number | null;
  /** How the new inputs were found: the writer position held, or the list was reconciled with the stored history. */
  alignment: "empty-store" | "position" | "reconciled" | "no-overlap" | "append" | "stored";
  /** The turn key was stored already: its inputs were not stored again. */
  duplicateTurn: boolean;
  /** Inputs stored although the list placed them before messages already stored (the host's list and the store disagreed). */
  disagreed: number;
  /** The writer's position after this call, for its next `ingest` (`IngestOptions.position`). */
  position: WriterPosition | null;
  /** Input messages that could not be stored (not an object, unknown role), with the reason (among those looked at). */
  rejected: Array<{ index: number; reason: string }>;
  /** Secrets redacted from the appended messages, per kind. */
  redactions: Record<string, number>;
}

export interface MessageRange {
  /** Inclusive. Default 0. */
  fromSeq?: number;
  /** Inclusive. Default: last. */
  toSeq?: number;
  /** At most this many rows. */
  limit?: number;
  /** Newest first instead of oldest first. */
  reverse?: boolean;
}

export type SummaryKind = "leaf" | "condensed";

/** How the summary text was obtained, for quality tracking and repair. */
export type SummaryLevel = "normal" | "aggressive" | "fallback";

export interface NewSummary {
  conversationId: number;
  kind: SummaryKind;
  /** 0 for leaf summaries; 1 + max child depth for condensed ones. */
  depth: number;
  content: string;
  /** Tokens of `content`. */
  tokens: number;
  /** Leaf: the messages it covers (any order; stored in seq order). */
  sourceMessageIds?: readonly number[];
  /** Condensed: the summaries it covers, in order. */
  childSummaryIds?: readonly string[];
  level?: SummaryLevel;
  model?: string | null;
  /** Free-form JSON-able metadata (prompt version, focus topic…). */
  meta?: Record<string, unknown>;
  createdAt?: number;
}

export interface SummaryRecord {
  /** `sum_` + 16 hex, derived from the conversation, sources and content (idempotent). */
  id: string;
  conversationId: number;
  kind: SummaryKind;
  depth: number;
  content: string;
  tokens: number;
  level: SummaryLevel;
  model: string | null;
  /** Time span of the covered messages (epoch ms). */
  earliestAt: number;
  latestAt: number;
  /** Seq span of the covered messages (inclusive). */
  firstSeq: number;
  lastSeq: number;
  /** Number of original messages under it (through the whole subtree). */
  descendantMessages: number;
  /** Sum of the tokens of the original messages under it. */
  sourceTokens: number;
  meta: Record<string, unknown> | null;
  createdAt: number;
}

export interface SummaryLineage {
  /** Direct message sources (leaf), in seq order. */
  messageIds: number[];
  /** Direct child summaries (condensed), in order. */
  childSummaryIds: string[];
  /** Summaries that directly cover this one (normally 0 or 1). */
  parentSummaryIds: string[];
}

export type FrontierItemKey = { kind: "message"; messageId: number } | { kind: "summary"; summaryId: string };

/** What compaction planning needs of a message (never its content): read with the frontier in one call. */
export interface FrontierShape {
  role: Role;
  /** Calls this assistant message makes (empty otherwise). */
  toolCallIds: string[];
  /** For a tool result: the call it answers. */
  toolCallId: string | null;
}

/** One element of the active context, in order. */
export type FrontierItem = FrontierItemKey & {
  /** Sparse sort key: order by it, never assume it is contiguous. */
  ordinal: number;
  tokens: number;
  /** Message items only, when asked for (`getFrontier(id, { shapes: true })`). */
  shape?: FrontierShape;
};

export interface Frontier {
  conversationId: number;
  version: number;
  /** Tokens and items of the whole frontier (also when `items` holds only what follows `afterOrdinal`). */
  tokens: number;
  count: number;
  items: FrontierItem[];
}

export interface FrontierReadOptions {
  /** Each message item carries its role and tool-call ids (one read for the planner). */
  shapes?: boolean;
  /** Only the items after this ordinal (what was appended since a reader's last item). */
  afterOrdinal?: number;
}

/**
 * Replace a contiguous run of frontier items (from `fromOrdinal` to
 * `toOrdinal`, inclusive) with one summary item. Compare-and-swap: applied
 * only when the run holds exactly `expect`, in order; otherwise nothing
 * changes and the caller gets `frontier_changed`.
 */
export interface FrontierReplace {
  fromOrdinal: number;
  toOrdinal: number;
  expect: readonly FrontierItemKey[];
}

/**
 * One step of `commitSummaries`: a summary and the frontier run it replaces.
 * `earlier[i]`, when a number, names an earlier step of the same batch whose
 * summary is the i-th child: its id fills `childSummaryIds[i]` and
 * `replace.expect[i]` (left empty by the caller, the id being known only once stored).
 */
export interface SummaryBatchStep {
  summary: NewSummary;
  replace: FrontierReplace;
  earlier?: ReadonlyArray<number | null>;
}

export interface CommitSummariesResult {
  /** The steps committed, in order (a prefix of the batch). */
  committed: SummaryRecord[];
  /** The first step refused (its reason as `commitSummary` gives it); the batch stopped there. */
  refused?: { step: number; reason: Extract<CommitSummaryResult, { ok: false }>["reason"]; detail: string };
}

export type CommitSummaryResult =
  | { ok: true; summary: SummaryRecord; frontierVersion: number }
  | {
      ok: false;
      /**
       * `frontier_changed`: the run no longer holds `expect` (CAS lost);
       * `unknown_source`: a source is not in this conversation;
       * `not_covered`: the run holds an item the summary does not cover (it would vanish without lineage).
       */
      reason: "frontier_changed" | "unknown_source" | "not_covered";
      detail: string;
    };

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
};

export interface CompactionLock {
  stillHeld(): Promise<boolean>;
}
