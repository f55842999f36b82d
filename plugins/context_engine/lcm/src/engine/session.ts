import type { SessionImport } from "./import-drain.js";
import type { Message } from "@context-engine/core";
import type { AssembleResult } from "../assembly/assembler.js";
import type { VirtualItem } from "../compaction/planner.js";
import type { PreparedWork } from "../compaction/runner.js";
import type { ConversationRecord, IngestResult, WriterPosition } from "../store/types.js";

/**
 * The planner's copy of a session's published frontier, kept between runs so
 * that a run reads only what was appended since its last item (see `plan-view.ts`).
 */
export interface PlanView {
  /** The store's frontier version the copy matches; -1 after a publish here (the next read checks the counters). */
  version: number;
  tokens: number;
  count: number;
  lastOrdinal: number;
  /** Published items only (messages and summaries), in frontier order. */
  items: VirtualItem[];
}

/** The last request selectContext replaced: its selection and the host list it stood for. */
export interface Rescue {
  selection: Message[];
  hostLength: number;
  hostLast: string;
}

/** Writer positions kept per session: a host may hand over lists of a few shapes (its request, its transcript). */
const POSITIONS = 3;
/** Host message objects kept by stored id, so assembly returns the host's own bytes for recent messages. */
const LIVE_MESSAGES = 2048;

/**
 * One session of the engine: everything in flight for it, with one owner.
 * The store holds everything durable; this holds only work in progress,
 * caches and a status snapshot, changed through the named transitions below.
 */
export class EngineSession {
  readonly sessionId: string;
  readonly conversationId: number;
  #queue: Promise<unknown> = Promise.resolve();
  #lockDepth = 0;
  #abort = new AbortController();
  #prepared: PreparedWork | null = null;
  #preparing: Promise<PreparedWork | null> | null = null;
  #prepareAgain = false;
  #planView: PlanView | null = null;
  #lastAssembly: { key: string; result: AssembleResult } | null = null;
  #lastCompaction: Record<string, unknown> | null = null;
  #rescue: Rescue | null = null;
  /** An import still storing its backlog (engine/import-drain.ts), or null. */
  importing: SessionImport | null = null;
  #snapshot: ConversationRecord;
  #positions: WriterPosition[] = [];
  readonly #live = new Map<number, Message>();
  /** Stored ids this session appended itself (recent ones): a short message matched to one of them is this writer's. */
  readonly #own = new Set<number>();
  #disagreed = false;

  constructor(sessionId: string, conversation: ConversationRecord) {
    this.sessionId = sessionId;
    this.conversationId = conversation.id;
    this.#snapshot = conversation;
  }

  // ------------------------------------------------------------ lock

  /** Run `fn` after every earlier locked call of the session (other sessions run in parallel). */
  locked<T>(fn: () => Promise<T>): Promise<T> {
    this.#lockDepth++;
    const run = this.#queue.then(fn, fn).finally(() => {
      this.#lockDepth--;
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Whether a locked call is queued or running (background publishing steps aside while one is). */
  get busy(): boolean {
    return this.#lockDepth > 0;
  }

  /** Aborted when the session's background work must stop (a reset, the session's end). */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  // ------------------------------------------------------------ ingest

  /** Where the host's lists stood after the last ingests, newest first. */
  get positions(): readonly WriterPosition[] {
    return this.#positions;
  }

  /** An ingest of a host list: where the writer stands now, the host's objects by stored id, the status counters. */
  recordIngest(result: IngestResult, messages: readonly Message[], firstHistoryIndex: number): void {
    if (result.position) {
      const p = result.position;
      this.#positions = [p, ...this.#positions.filter((q) => q.index !== p.index || q.fingerprint !== p.fingerprint)].slice(0, POSITIONS);
    }
    this.#rememberLive(result.knownIds, messages, firstHistoryIndex);
    // New ids are never in the set yet: only the newest LIVE_MESSAGES of them can stay.
    const appendedIds = result.appendedIds;
    for (const id of appendedIds.length > LIVE_MESSAGES ? appendedIds.slice(-LIVE_MESSAGES) : appendedIds) this.#own.add(id);
    for (const id of this.#own) {
      if (this.#own.size <= LIVE_MESSAGES) break;
      this.#own.delete(id);
    }
    if (result.appended > 0) {
      const snap = this.#snapshot;
      this.#snapshot = { ...snap, messageCount: snap.messageCount + result.appended, lastSeq: result.lastSeq ?? snap.lastSeq, updatedAt: Date.now() };
    }
  }

  /**
   * The host's objects by stored id, the newest LIVE_MESSAGES (by their last place in the list). A long list is
   * read from its end, so a history handed over at once does not pass every id through the map.
   */
  #rememberLive(knownIds: ReadonlyMap<number, number>, messages: readonly Message[], firstHistoryIndex: number): void {
    const newest = knownIds.size > 2 * LIVE_MESSAGES ? newestDistinct(knownIds, firstHistoryIndex) : null;
    if (newest) this.#live.clear();
    for (const [i, id] of newest ?? knownIds) {
      if (i < firstHistoryIndex) continue;
      this.#live.delete(id);
      this.#live.set(id, messages[i]!);
    }
    for (const id of this.#live.keys()) {
      if (this.#live.size <= LIVE_MESSAGES) break;
      this.#live.delete(id);
    }
  }

  /** Stored ids this session appended itself (recent ones). */
  get own(): ReadonlySet<number> {
    return this.#own;
  }

  /** Whether this is the first time the host's list disagreed with the store in this session (logged once). */
  firstDisagreement(): boolean {
    const first = !this.#disagreed;
    this.#disagreed = true;
    return first;
  }

  /** Host message objects by stored id (recent ones), for assembly. */
  get live(): ReadonlyMap<number, Message> {
    return this.#live;
  }

  // ------------------------------------------------------------ status

  /** The conversation's counters as last read (what `getStatus` shows: it never calls the store). */
  get snapshot(): ConversationRecord {
    return this.#snapshot;
  }

  noteConversation(conversation: ConversationRecord): void {
    this.#snapshot = conversation;
  }

  get lastCompaction(): Record<string, unknown> | null {
    return this.#lastCompaction;
  }

  /** A compaction ran: its record for `getStatus`; the host's list is now the compacted one, so no rescue stands. */
  noteCompaction(record: Record<string, unknown>): void {
    this.#lastCompaction = record;
    this.#rescue = null;
  }

  // ------------------------------------------------------------ preparation

  get prepared(): PreparedWork | null {
    return this.#prepared;
  }

  /** Newer prepared work replaces older (publishing checks every step against the frontier anyway). */
  offerPrepared(work: PreparedWork): void {
    this.#prepared = work;
  }

  /** The prepared work, handed to whoever publishes it (the session keeps none). */
  takePrepared(): PreparedWork | null {
    const work = this.#prepared;
    this.#prepared = null;
    return work;
  }

  /** Prepared work published in the background: the cached assembly no longer matches the frontier. */
  notePublished(work: PreparedWork): void {
    if (this.#prepared === work) this.#prepared = null;
    this.#lastAssembly = null;
  }

  get preparing(): Promise<PreparedWork | null> | null {
    return this.#preparing;
  }

  /** Start a background run unless one is going; when one is, one more run follows it. Returns whether to start. */
  claimPreparation(): boolean {
    if (this.#preparing) {
      this.#prepareAgain = true;
      return false;
    }
    this.#prepareAgain = false;
    return true;
  }

  beginPreparing(job: Promise<PreparedWork | null>): void {
    this.#preparing = job;
  }

  endPreparing(job: Promise<PreparedWork | null>): void {
    if (this.#preparing === job) this.#preparing = null;
  }

  /** Whether more history arrived while a run went on (and forget it: the caller runs once more). */
  takePrepareAgain(): boolean {
    const again = this.#prepareAgain;
    this.#prepareAgain = false;
    return again;
  }

  // ------------------------------------------------------------ planner view and assembly

  get planView(): PlanView | null {
    return this.#planView;
  }

  setPlanView(view: PlanView | null): void {
    this.#planView = view;
  }

  cachedAssembly(key: string): AssembleResult | null {
    return this.#lastAssembly?.key === key ? this.#lastAssembly.result : null;
  }

  noteAssembly(key: string, result: AssembleResult): void {
    this.#lastAssembly = { key, result };
  }

  // ------------------------------------------------------------ selection

  get rescue(): Rescue | null {
    return this.#rescue;
  }

  noteRescue(rescue: Rescue | null): void {
    this.#rescue = rescue;
  }

  // ------------------------------------------------------------ lifecycle

  /** `/new`, `/reset`: background work stops and nothing in flight survives; the stored history stays. */
  reset(): void {
    this.#abort.abort();
    this.#abort = new AbortController();
    this.#prepared = null;
    this.#preparing = null;
    this.#prepareAgain = false;
    this.#planView = null;
    this.#lastAssembly = null;
    this.#rescue = null;
    this.#positions = [];
    this.#live.clear();
    this.#own.clear();
  }

  /** The active context was cleared in the store: what was cached of it is gone. */
  contextCleared(conversation: ConversationRecord | null): void {
    this.#lastAssembly = null;
    this.#planView = null;
    if (conversation) this.#snapshot = conversation;
  }

  /** The session ends here (its stored history stays). */
  stop(): void {
    this.#abort.abort();
  }
}

/**
 * The last LIVE_MESSAGES distinct ids of a sparse index -> id map (inputs from `firstHistoryIndex`), each at its
 * last entry, oldest first: what the map would keep of them all. Null when there are not that many.
 */
function newestDistinct(knownIds: ReadonlyMap<number, number>, firstHistoryIndex: number): Array<[number, number]> | null {
  const entries = [...knownIds];
  const seen = new Set<number>();
  const out: Array<[number, number]> = [];
  for (let k = entries.length - 1; k >= 0 && out.length < LIVE_MESSAGES; k--) {
    const [i, id] = entries[k]!;
    if (i < firstHistoryIndex || seen.has(id)) continue;
    seen.add(id);
    out.push([i, id]);
  }
  return out.length < LIVE_MESSAGES ? null : out.reverse();
}
