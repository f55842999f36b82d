import type { DeferBacklog } from "./import-plan.js";
import type { Message, Role } from "@context-engine/core";
import type { FrontierItem } from "./summary-types.js";

/** What the store keeps of conversations and messages, and how an ingest is asked for and answered (see `types.ts`). */

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
  /**
   * The first ingest of a conversation with more than `above` messages stores only the newest that fill
   * `tailTokens` (at least `minTail`) and reserves seqs for the older ones, which `importSlice` stores
   * afterwards (see import-plan.ts). Absent: everything is stored at once.
   */
  deferBacklog?: DeferBacklog;
  /**
   * A list that carries this conversation's pending import (the one that started it, held by the caller),
   * used when the import must be finished inside this ingest (the list given is compared with the whole
   * history) and the list given does not carry it itself.
   */
  importSource?: ImportSource;
}

/** A host list carrying an import's backlog, with the rule that told its synthetic messages when it began. */
export interface ImportSource {
  messages: readonly Message[];
  isSynthetic?: (message: Message, index: number) => boolean;
  /** When each message was said (`IngestOptions.timestamps` of that list). */
  timestamps?: ReadonlyArray<number | null | undefined>;
}

/** What `importSlice` did: the backlog messages it stored and what is left (null: no import pending). */
export interface ImportSliceResult extends ImportProgress {
  stored: number;
}

/** An import still storing its backlog, as an ingest or a slice left it. */
export interface ImportProgress {
  /** Backlog messages not stored yet. */
  remaining: number;
  /** The list given carries the backlog (shows the same history where the tail began): it can finish the import. */
  carried: boolean;
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
  /** The conversation's import still storing its backlog after this call (deferred by it or earlier), else null. */
  pendingImport: ImportProgress | null;
  /** Backlog messages given up because no list carrying them was at hand when the history had to be whole. */
  importAbandoned: number;
  /** What the appended messages added to the frontier, when they joined it (not with a deferred backlog). */
  frontierAppend?: FrontierAppend;
}

/**
 * The frontier items an ingest appended, with the frontier's counters just before (same transaction): a
 * session holding a copy of the frontier at those counters extends it without reading the new items back.
 */
export interface FrontierAppend {
  before: { version: number; tokens: number; count: number };
  /** In ordinal order, each with its message's shape, as `getFrontier(id, { shapes: true })` returns them. */
  items: FrontierItem[];
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
