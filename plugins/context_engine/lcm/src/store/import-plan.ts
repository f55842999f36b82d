import type { Message } from "@context-engine/core";
import type { EncodedMessage } from "./codec.js";
import { IngestInputs, type IngestEncoder } from "./ingest-inputs.js";
import type { IngestOptions, IngestResult } from "./message-types.js";

/**
 * A long history handed over at once (the first ingest of a conversation) is
 * stored in two parts: the tail the answer needs, at once, and the older
 * backlog afterwards, in slices off the hook path. The backlog's seqs are
 * reserved when the tail is stored (the tail starts at `endSeq`), so every
 * message ends up once, in the list's order, whatever turns come meanwhile:
 * a later turn is appended after the tail as usual. What is left is recorded
 * in the store (`pending_imports`): a restarted process that is given a list
 * showing the same history at the same place finishes it from that list.
 */

/** The store's record of an import still in progress (one per conversation at most). */
export interface PendingImport {
  conversationId: number;
  /** The seq the next backlog message takes; `endSeq` is the tail's first seq. */
  nextSeq: number;
  endSeq: number;
  /** List index of the next backlog input, and of the tail's first input. */
  nextIndex: number;
  anchorIndex: number;
  /** The list's position fingerprint at `anchorIndex`: a list that shows the same history there carries the backlog. */
  anchorFingerprint: string;
  /** Frontier ordinal = seq + ordinalBase for backlog messages, while the frontier still holds the tail's first message there. */
  ordinalBase: number;
  anchorMessageId: number;
  /** Epoch ms of the last slice (or of the start): an import that moved within IMPORT_LEASE_MS has a process at work on it. */
  updatedAt: number;
}

/**
 * How long an import without progress is taken for one whose process is still at work on it (it holds the
 * list): another writer's ingest that has no list carrying the backlog leaves it alone meanwhile (reconciling
 * with what is stored); after it, such an ingest gives the backlog up, since no process can finish it.
 */
export const IMPORT_LEASE_MS = 60_000;

/** Whether an import may be given up by a writer that cannot finish it: nobody moved it for IMPORT_LEASE_MS. */
export function abandoned(p: PendingImport, now = Date.now()): boolean {
  return now - p.updatedAt > IMPORT_LEASE_MS;
}

/** Backlog messages still to store. Rejected inputs (an unknown role) leave their reserved seq unused. */
export function remainingOf(p: PendingImport | null): number {
  return p ? p.endSeq - p.nextSeq : 0;
}

/** How an ingest may defer a long history's backlog (`IngestOptions.deferBacklog`). */
export interface DeferBacklog {
  /** Defer only when the list holds more messages than this. */
  above: number;
  /** The tail stored at once holds at least these tokens (the assembled context's budget) ... */
  tailTokens: number;
  /** ... and at least this many messages. */
  minTail: number;
  countTokens: (message: Message) => number;
}

/**
 * Where the tail starts (a list index), or 0 to store everything now. The tail is the newest messages that
 * fill `tailTokens` (raw messages counted, not yet encoded) and never starts on a tool result, so a call and
 * its results are stored in the same part.
 */
export function backlogSplit(inputs: IngestInputs, defer: DeferBacklog | undefined): number {
  const n = inputs.length;
  if (!defer || defer.above <= 0 || n <= defer.above) return 0;
  let tokens = 0;
  let count = 0;
  let i = n;
  while (i > 0 && (tokens < defer.tailTokens || count < defer.minTail)) {
    i--;
    if (!inputs.wouldStore(i)) continue;
    tokens += defer.countTokens(inputs.messages[i]!);
    count++;
  }
  while (i > 0 && (inputs.messages[i] as { role?: unknown }).role === "tool") i--;
  return i;
}

/** Real inputs (objects the engine did not produce) in [from, to): one reserved seq each. */
export function countReal(inputs: IngestInputs, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (inputs.wouldStore(i)) n++;
  return n;
}

/** One backlog message to store. */
export interface BacklogRow {
  index: number;
  seq: number;
  encoded: EncodedMessage;
}

/**
 * The next backlog rows from `source` (a list carrying the import: see `carries`), in order, until `budget`
 * says stop; the state after them. An input that cannot be stored leaves its seq unused (a hole).
 */
export function nextBacklogRows(inputs: IngestInputs, p: PendingImport, budget: () => boolean): { rows: BacklogRow[]; next: PendingImport } {
  const rows: BacklogRow[] = [];
  let { nextSeq, nextIndex } = p;
  while (nextIndex < p.anchorIndex && nextSeq < p.endSeq && !budget()) {
    const i = nextIndex++;
    if (!inputs.isReal(i)) continue;
    const seq = nextSeq++;
    const encoded = inputs.encoded(i);
    if (encoded) rows.push({ index: i, seq, encoded });
  }
  // The list ran out of backlog before the reserved seqs did (cannot happen with a list that carries it).
  if (nextIndex >= p.anchorIndex) nextSeq = p.endSeq;
  return { rows, next: { ...p, nextSeq, nextIndex } };
}

/** Whether a host list shows the imported history where the import's tail began (same fingerprint). */
export function carries(inputs: IngestInputs, p: PendingImport): boolean {
  return p.anchorIndex < inputs.length && inputs.positionFingerprint(p.anchorIndex) === p.anchorFingerprint;
}

/** Inputs over a source list, for an import slice. */
export function sourceInputs(messages: readonly Message[], isSynthetic: IngestOptions["isSynthetic"], encoder: IngestEncoder): IngestInputs {
  return new IngestInputs(messages, isSynthetic, encoder);
}

/** How long an import slice may go on: about `maxMs` of encoding, and at most `maxRows` rows (their inserts come after). */
export interface SliceLimits {
  maxMs?: number;
  maxRows?: number;
}

/** A stop rule for a slice, asked before each row: after `maxMs` or `maxRows`, or never. */
export function sliceBudget(limits: SliceLimits): () => boolean {
  const { maxMs, maxRows = Infinity } = limits;
  const until = maxMs === undefined ? Infinity : performance.now() + maxMs;
  let k = 0;
  // The clock is read every 16 rows: a row costs tens of microseconds.
  return () => ++k > maxRows || ((k & 15) === 0 && performance.now() >= until);
}

/** Whether the list given, or else the caller's own list (`IngestOptions.importSource`), can carry the import on. */
export function carriedBy(inputs: IngestInputs, p: PendingImport, source: IngestOptions["importSource"], encoder: IngestEncoder): boolean {
  return carries(inputs, p) || (source !== undefined && carries(sourceInputs(source.messages, source.isSynthetic, encoder), p));
}

/** What an ingest says of the conversation's import: the backlog it deferred, one still running, or what was given up. */
export function importReport(
  deferred: { reserved: number } | null,
  pending: PendingImport | null,
  abandoned: number,
  inputs: IngestInputs,
): Pick<IngestResult, "pendingImport" | "importAbandoned"> {
  if (deferred) return { pendingImport: { remaining: deferred.reserved, carried: true }, importAbandoned: abandoned };
  if (pending && abandoned === 0) return { pendingImport: { remaining: remainingOf(pending), carried: carries(inputs, pending) }, importAbandoned: 0 };
  return { pendingImport: null, importAbandoned: abandoned };
}

/**
 * The record of an import whose tail was just stored: `storedCount` messages before it, `reserved` seqs for
 * the backlog, the tail's `appended` messages ending at frontier ordinal `maxOrdinal`, the first with id `tailFirstId`.
 */
export function newPendingImport(
  conversationId: number,
  at: { storedCount: number; reserved: number; appended: number; maxOrdinal: number; tailFirstId: number },
  deferred: { anchorIndex: number; fingerprint: string },
): PendingImport {
  const { storedCount, reserved, appended, maxOrdinal, tailFirstId } = at;
  return {
    conversationId,
    nextSeq: storedCount,
    endSeq: storedCount + reserved,
    nextIndex: 0,
    anchorIndex: deferred.anchorIndex,
    anchorFingerprint: deferred.fingerprint,
    ordinalBase: maxOrdinal - (storedCount + reserved + appended - 1),
    anchorMessageId: tailFirstId,
    updatedAt: Date.now(),
  };
}
