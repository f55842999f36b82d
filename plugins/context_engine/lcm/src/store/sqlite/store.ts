import { createHash } from "node:crypto";
import { mkdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import { defaultTokenCounter, type Message } from "@context-engine/core";
import { createRedactor } from "../../redact/redactor.js";
import type { Redactor } from "../../redact/types.js";
import { alignTranscript } from "../align.js";
import { ScreenThread } from "../../redact/screen-thread.js";
import { pinNativeObjects } from "../native-pin.js";
import { ScreenBatch } from "../screen-batch.js";
import { StoredHashes } from "./stored-hashes.js";
import {
  decodeMessage,
  encodeMessage,
  FLAG_CJK,
  FLAG_HAS_PARTS,
  FLAG_REDACTED,
  type EncodedMessage,
  type MessageRow,
  type PartRow,
} from "../codec.js";
import { migrate, SCHEMA_VERSION } from "./schema.js";
import { conversationUsageRows, deleteConversationRows } from "./delete.js";
import { searchStoreOf } from "./search.js";
import { stmt } from "./statements.js";
import type { LcmSearchStore } from "../search-types.js";
import type {
  ConversationUsage,
  DeleteReport,
  CommitSummaryResult,
  ConversationRecord,
  Frontier,
  FrontierItem,
  FrontierItemKey,
  FrontierReplace,
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
  SummaryLevel,
  SummaryLineage,
  SummaryRecord,
} from "../types.js";

const DEFAULT_PAYLOAD_THRESHOLD = 16 * 1024;
/** In `index: "auto"` mode, an ingest appending more than this many messages defers its indexing. */
const AUTO_DEFER_ABOVE = 500;
/**
 * How many of the last messages appended by one ingest keep their identity hash in the object cache.
 * Alignment only reads the end of a transcript (up to 256 mapped ids plus the anchor run), and a cache
 * entry per message of a bulk import is a live WeakMap entry the garbage collector keeps revisiting.
 */
const HASH_CACHE_TAIL = 512;
/** An ingest appending at least this many messages runs the redaction pre-screen ahead, on a second thread. */
const SCREEN_THREAD_MIN = 256;

interface ConversationRow {
  id: number;
  session_id: string;
  created_at: number;
  updated_at: number;
  message_count: number;
  message_tokens: number;
  text_bytes: number;
  frontier_version: number;
  frontier_tokens: number;
  frontier_count: number;
}

interface SummaryRow {
  id: string;
  conversation_id: number;
  kind: SummaryKind;
  depth: number;
  content: string;
  tokens: number;
  level: SummaryLevel;
  model: string | null;
  earliest_at: number;
  latest_at: number;
  first_seq: number;
  last_seq: number;
  descendant_messages: number;
  source_tokens: number;
  meta: string | null;
  created_at: number;
}

interface FrontierRow {
  ordinal: number;
  message_id: number | null;
  summary_id: string | null;
  tokens: number;
}

function toConversation(r: ConversationRow): ConversationRecord {
  return {
    id: r.id,
    sessionId: r.session_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    messageCount: r.message_count,
    lastSeq: r.message_count - 1,
    messageTokens: r.message_tokens,
    frontierVersion: r.frontier_version,
    frontierTokens: r.frontier_tokens,
    frontierCount: r.frontier_count,
  };
}

function toSummary(r: SummaryRow): SummaryRecord {
  return {
    id: r.id,
    conversationId: r.conversation_id,
    kind: r.kind,
    depth: r.depth,
    content: r.content,
    tokens: r.tokens,
    level: r.level,
    model: r.model,
    earliestAt: r.earliest_at,
    latestAt: r.latest_at,
    firstSeq: r.first_seq,
    lastSeq: r.last_seq,
    descendantMessages: r.descendant_messages,
    sourceTokens: r.source_tokens,
    meta: r.meta ? (JSON.parse(r.meta) as Record<string, unknown>) : null,
    createdAt: r.created_at,
  };
}

function toFrontierItem(r: FrontierRow): FrontierItem {
  return r.message_id !== null
    ? { kind: "message", messageId: r.message_id, ordinal: r.ordinal, tokens: r.tokens }
    : { kind: "summary", summaryId: r.summary_id as string, ordinal: r.ordinal, tokens: r.tokens };
}

function sameKey(a: FrontierItemKey, b: FrontierItemKey): boolean {
  if (a.kind === "message") return b.kind === "message" && a.messageId === b.messageId;
  return b.kind === "summary" && a.summaryId === b.summaryId;
}

function hex(b: Buffer): string {
  return b.toString("hex");
}

/** Resolve the database path from the options. */
export function resolveStorePath(options: OpenStoreOptions): string {
  if (options.path) return options.path;
  return join(options.dataDir ?? ".lcm", "lcm.sqlite");
}

/** Open (creating and migrating as needed) the LCM store. */
export function openLcmStore(options: OpenStoreOptions = {}): LcmStore {
  return new SqliteLcmStore(options);
}

export class SqliteLcmStore implements LcmStore {
  readonly path: string;
  readonly schemaVersion = SCHEMA_VERSION;
  /** The raw handle: only for the SQLite driver's own modules (see `sqliteHandle`). */
  readonly #db: Database.Database;
  readonly redactor: Redactor;
  readonly #countTokens: (m: Message) => number;
  readonly #payloadThreshold: number;
  readonly #s: ReturnType<typeof prepare>;
  /**
   * Identity hashes of host message objects already seen, checked against the
   * content and tool_calls references: a host hands the same objects over turn
   * after turn, so alignment rarely has to re-encode anything.
   */
  readonly #hashCache = new WeakMap<object, { content: unknown; calls: unknown; hash: string }>();
  /** Whether this handle queued messages for indexing that may still be waiting. */
  #backlog = false;
  /** The pre-screen thread of bulk ingests: started on first use, null if it could not be. */
  #screenThread: ScreenThread | null | undefined;

  constructor(options: OpenStoreOptions = {}) {
    this.path = resolveStorePath(options);
    if (this.path !== ":memory:") mkdirSync(dirname(this.path), { recursive: true });
    this.redactor = createRedactor(options.redaction === undefined ? {} : options.redaction);
    this.#countTokens = options.countTokens ?? ((m) => defaultTokenCounter.countMessage(m));
    this.#payloadThreshold = options.payloadThresholdBytes ?? DEFAULT_PAYLOAD_THRESHOLD;
    this.#db = pinNativeObjects(new Database(this.path, { timeout: options.busyTimeoutMs ?? 5000 }));
    try {
      const fresh = (this.#db.prepare("SELECT count(*) AS n FROM sqlite_master").get() as { n: number }).n === 0;
      if (fresh) {
        // Both only take effect before the first table. 16 KiB pages waste less space around
        // variable-sized rows (long tool output) than the 4 KiB default: about 1.9x instead of 2.1x raw text.
        this.#db.pragma("page_size = 16384");
        this.#db.pragma("auto_vacuum = INCREMENTAL");
      }
      this.#db.pragma("journal_mode = WAL");
      this.#db.pragma("synchronous = NORMAL");
      this.#db.pragma("foreign_keys = ON");
      this.#db.pragma("temp_store = MEMORY");
      this.#db.pragma("cache_size = -32000");
      // Reads through a memory map: no copy per page on the search and assembly paths.
      this.#db.pragma("mmap_size = 268435456");
      migrate(this.#db);
      this.#s = prepare(this.#db);
    } catch (error) {
      this.#db.close();
      throw error;
    }
  }

  /** The driver's modules reach the handle through `sqliteHandle`; it is not part of the store interface. */
  static handleOf(store: SqliteLcmStore): Database.Database {
    return store.#db;
  }

  get isOpen(): boolean {
    return this.#db.open;
  }

  close(): void {
    this.#screenThread?.close();
    this.#screenThread = null;
    if (!this.#db.open) return;
    try {
      this.#db.pragma("optimize");
    } catch {
      // optimize is advisory
    }
    this.#db.close();
  }

  transaction<T>(fn: () => T): T {
    return this.#db.transaction(fn)();
  }

  // ---------------------------------------------------------------- conversations

  conversation(sessionId: string): ConversationRecord {
    if (typeof sessionId !== "string" || sessionId.length === 0) throw new Error("conversation: sessionId must be a non-empty string");
    const found = this.#s.convBySession.get(sessionId) as ConversationRow | undefined;
    if (found) return toConversation(found);
    const now = Date.now();
    this.#s.insertConv.run(sessionId, now, now);
    return toConversation(this.#s.convBySession.get(sessionId) as ConversationRow);
  }

  findConversation(sessionId: string): ConversationRecord | null {
    const r = this.#s.convBySession.get(sessionId) as ConversationRow | undefined;
    return r ? toConversation(r) : null;
  }

  getConversation(id: number): ConversationRecord | null {
    const r = this.#s.convById.get(id) as ConversationRow | undefined;
    return r ? toConversation(r) : null;
  }

  listConversations(): ConversationRecord[] {
    return (this.#s.listConvs.all() as ConversationRow[]).map(toConversation);
  }

  #requireConversation(id: number): ConversationRow {
    const r = this.#s.convById.get(id) as ConversationRow | undefined;
    if (!r) throw new Error(`unknown conversation id ${id}`);
    return r;
  }

  // ---------------------------------------------------------------- ingest

  ingest(conversationId: number, messages: readonly Message[], options: IngestOptions = {}): IngestResult {
    const result = this.#db.transaction(() => this.#ingest(conversationId, messages, options)).immediate();
    // A small ingest pays a little of an earlier bulk import's indexing backlog.
    if (this.#backlog && (options.index ?? "auto") === "auto" && result.appended <= AUTO_DEFER_ABOVE) {
      this.indexPending({ maxMs: 10 });
    }
    return result;
  }

  #ingest(conversationId: number, messages: readonly Message[], options: IngestOptions): IngestResult {
    const conv = this.#requireConversation(conversationId);
    const n = messages.length;
    const ids: Array<number | null> = new Array<number | null>(n).fill(null);
    const rejected: Array<{ index: number; reason: string }> = [];
    // 0 = not looked at yet, 1 = synthetic, 2 = rejected, 3 = a real message. Decided lazily: alignment
    // only looks at the end of a long transcript, so a turn costs O(new messages), not O(transcript).
    const synthetic = new Uint8Array(n);
    let syntheticCount = 0;
    const isSynthetic = options.isSynthetic;
    const kind = (i: number): number => {
      let k = synthetic[i]!;
      if (k !== 0) return k;
      const m = messages[i];
      if (m === null || typeof m !== "object" || Array.isArray(m)) {
        k = 2;
        rejected.push({ index: i, reason: "not a message object" });
      } else if (isSynthetic?.(m, i)) {
        k = 1;
        syntheticCount++;
      } else k = 3;
      synthetic[i] = k;
      return k;
    };
    const encoded = new Array<EncodedMessage | null | undefined>(n);
    const encode = (i: number, screen: ScreenBatch | null = null): EncodedMessage | null => {
      const cached = encoded[i];
      if (cached !== undefined) return cached;
      let e: EncodedMessage | null = null;
      if (kind(i) === 3) {
        try {
          e = encodeMessage(messages[i] as Message, this.redactor, screen?.forMessage(i) ?? null);
        } catch (error) {
          synthetic[i] = 2;
          rejected.push({ index: i, reason: (error as Error).message });
        }
      }
      encoded[i] = e;
      return e;
    };

    const mode = options.mode ?? "align";
    let start = 0; // first input index to append
    let alignment: IngestResult["alignment"] = "append";
    let alreadyStored = 0;
    if (mode === "align") {
      if (conv.message_count === 0) {
        alignment = "empty-store";
      } else {
        const storedTail: Array<{ id: number; hash: string }> = [];
        const storedHash = (k: number): string | null => {
          while (storedTail.length <= k) {
            const fromSeq = conv.message_count - 1 - storedTail.length;
            if (fromSeq < 0) return null;
            const list = (this.#s.tailHashes.get(conversationId, fromSeq, 320) as { list: string | null }).list;
            if (!list) return null;
            const parts = list.split(" ");
            for (let j = 0; j + 1 < parts.length; j += 2) storedTail.push({ id: Number(parts[j]), hash: parts[j + 1]! });
          }
          return storedTail[k]?.hash ?? null;
        };
        const out = alignTranscript({
          length: n,
          storedCount: conv.message_count,
          inputHash: (i) => {
            if (kind(i) !== 3) return null;
            const m = messages[i] as unknown as Record<string, unknown>;
            const hit = this.#hashCache.get(m);
            if (hit && hit.content === m.content && hit.calls === m.tool_calls) return hit.hash;
            const e = encode(i);
            if (!e) return null;
            const h = e.hashHex;
            this.#hashCache.set(m, { content: m.content, calls: m.tool_calls, hash: h });
            return h;
          },
          mapLimit: 256,
          storedHash,
          isBoundaryRole: (i) => {
            const role = (messages[i] as { role?: unknown }).role;
            return role === "system" || role === "developer";
          },
        });
        if (out.anchor >= 0) {
          alignment = "anchored";
          start = out.anchor + 1;
          for (const [i, k] of out.matched) ids[i] = storedTail[k]?.id ?? null;
          alreadyStored = out.matched.size;
        } else {
          // No consistent anchor: append after the last input already known by hash.
          const known = new StoredHashes(this.#s.hashesNewestFirst, conversationId, storedTail);
          let lastKnown = -1;
          for (let i = n - 1; i >= 0; i--) {
            const e = encode(i);
            if (!e) continue;
            const id = known.idOf(e.hashHex);
            if (id !== null) {
              lastKnown = i;
              ids[i] = id;
              alreadyStored++;
              break;
            }
          }
          alignment = lastKnown >= 0 ? "hash-fallback" : "no-overlap";
          start = lastKnown + 1;
        }
      }
    }

    const now = options.now ?? Date.now();
    const appendFrontier = options.appendToFrontier ?? true;
    const indexMode = options.index ?? "auto";
    const deferIndex = indexMode === "deferred" || (indexMode === "auto" && n - start > AUTO_DEFER_ABOVE);
    if (deferIndex) this.#backlog = true;
    let seq = conv.message_count;
    let addedTokens = 0;
    let addedBytes = 0;
    let appended = 0;
    let firstSeq: number | null = null;
    const redactions: Record<string, number> = {};
    const ctag = `c${conversationId}`;
    const s = this.#s;
    const screen = this.#screenAhead(messages, start, kind, encoded);
    for (let i = start; i < n; i++) {
      const e = encode(i, screen);
      if (!e) continue;
      const tokens = this.#countTokens(e.message);
      const createdAt = options.timestamps?.[i] ?? now;
      let text: string | null = e.text;
      let payload: string | null = null;
      const textBytes = Buffer.byteLength(e.text);
      if (textBytes > this.#payloadThreshold) {
        payload = this.#putPayload(e.text, "text/plain");
        text = null;
      }
      const flags = (e.parts.length ? FLAG_HAS_PARTS : 0) | (e.redacted ? FLAG_REDACTED : 0) | (e.hasCjk ? FLAG_CJK : 0);
      const id = Number(
        s.insertMessage.run(conversationId, seq, e.role, e.shape, text, payload, e.name, e.toolCallId, e.extra, tokens, createdAt, e.hash, flags)
          .lastInsertRowid,
      );
      for (const p of e.parts) {
        let body = p.body;
        let partPayload: string | null = null;
        if (body !== null && body.length > this.#payloadThreshold / 3 && Buffer.byteLength(body) > this.#payloadThreshold) {
          partPayload = this.#putPayload(body, p.kind === 1 ? "application/json" : "application/json");
          body = null;
        }
        s.insertPart.run(id, p.kind, p.ordinal, p.callId, p.name, body, partPayload, p.span, p.extra);
      }
      if (deferIndex) s.insertPending.run(id);
      else {
        s.insertFts.run(id, e.searchText, ctag);
        if (e.hasCjk) s.insertCjk.run(id, e.searchText);
      }
      if (e.redacted) for (const k of Object.keys(e.redactions)) redactions[k] = (redactions[k] ?? 0) + e.redactions[k]!;
      if (i >= n - HASH_CACHE_TAIL) {
        const src = messages[i] as unknown as Record<string, unknown>;
        this.#hashCache.set(src, { content: src.content, calls: src.tool_calls, hash: e.hashHex });
      }
      ids[i] = id;
      firstSeq ??= seq;
      seq++;
      appended++;
      addedTokens += tokens;
      addedBytes += e.searchText === e.text ? textBytes : Buffer.byteLength(e.searchText);
    }
    if (appended > 0 && appendFrontier) {
      // The new messages join the frontier in seq order, in one statement rather than one per message.
      const next = ((s.maxOrdinal.get(conversationId) as { m: number | null }).m ?? -1) + 1;
      s.appendNewToFrontier.run(next - firstSeq!, conversationId, firstSeq);
    }
    if (appended > 0) {
      s.bumpConvAfterIngest.run(appended, addedTokens, addedBytes, Date.now(), appendFrontier ? addedTokens : 0, appendFrontier ? appended : 0, appendFrontier ? 1 : 0, conversationId);
    }
    return {
      conversationId,
      appended,
      alreadyStored,
      synthetic: syntheticCount,
      ids,
      firstSeq,
      lastSeq: appended ? seq - 1 : null,
      alignment,
      rejected: rejected.sort((a, b) => a.index - b.index),
      redactions,
    };
  }

  /** For a bulk append: the redaction pre-screen of messages[start..] sent ahead to the screen thread. */
  #screenAhead(
    messages: readonly Message[],
    start: number,
    kind: (i: number) => number,
    encoded: ReadonlyArray<EncodedMessage | null | undefined>,
  ): ScreenBatch | null {
    if (!this.redactor.screen || messages.length - start < SCREEN_THREAD_MIN) return null;
    if (this.#screenThread === undefined) this.#screenThread = ScreenThread.start(this.redactor.screen);
    if (!this.#screenThread || this.#screenThread.broken) return null;
    const indexes: number[] = [];
    for (let i = start; i < messages.length; i++) if (encoded[i] === undefined && kind(i) === 3) indexes.push(i);
    return new ScreenBatch(this.#screenThread, messages, indexes);
  }

  // ---------------------------------------------------------------- messages

  #hydrate(row: MessageRow): StoredMessage {
    const text = row.text ?? (row.payload ? this.#payloadText(row.payload) : "");
    let parts: Array<PartRow & { resolvedBody: string | null }> = [];
    if (row.flags & FLAG_HAS_PARTS) {
      parts = (this.#s.partsOf.all(row.id) as PartRow[]).map((p) => ({
        ...p,
        resolvedBody: p.body ?? (p.payload ? this.#payloadText(p.payload) : null),
      }));
    }
    const d = decodeMessage(row, text, parts);
    return {
      id: row.id,
      conversationId: row.conversation_id,
      seq: row.seq,
      role: row.role,
      message: d.message,
      text: d.callText ? text + d.callText : text,
      tokens: row.tokens,
      createdAt: row.created_at,
      hash: hex(row.hash),
      toolCallIds: d.toolCallIds,
      toolCallId: row.tool_call_id,
      redacted: (row.flags & FLAG_REDACTED) !== 0,
    };
  }

  #payloadText(hash: string): string {
    const r = this.#s.payloadText.get(hash) as { t: string } | undefined;
    return r?.t ?? "";
  }

  getMessage(id: number): StoredMessage | null {
    const r = this.#s.messageById.get(id) as MessageRow | undefined;
    return r ? this.#hydrate(r) : null;
  }

  getMessagesByIds(ids: readonly number[]): StoredMessage[] {
    const out: StoredMessage[] = [];
    for (const id of ids) {
      const m = this.getMessage(id);
      if (m) out.push(m);
    }
    return out;
  }

  getMessages(conversationId: number, range: MessageRange = {}): StoredMessage[] {
    const from = range.fromSeq ?? 0;
    const to = range.toSeq ?? Number.MAX_SAFE_INTEGER;
    const limit = range.limit ?? -1;
    const rows = (range.reverse ? this.#s.rangeDesc : this.#s.rangeAsc).all(conversationId, from, to, limit) as MessageRow[];
    return rows.map((r) => this.#hydrate(r));
  }

  getMessageBySeq(conversationId: number, seq: number): StoredMessage | null {
    const r = this.#s.messageBySeq.get(conversationId, seq) as MessageRow | undefined;
    return r ? this.#hydrate(r) : null;
  }

  tokensInRange(conversationId: number, fromSeq: number, toSeq: number): number {
    return (this.#s.tokensInRange.get(conversationId, fromSeq, toSeq) as { t: number | null }).t ?? 0;
  }

  toolExchange(conversationId: number, toolCallId: string): StoredMessage[] {
    const out: StoredMessage[] = [];
    const call = this.#s.callMessage.get(toolCallId, conversationId) as MessageRow | undefined;
    if (call) out.push(this.#hydrate(call));
    for (const r of this.#s.toolResults.all(conversationId, toolCallId) as MessageRow[]) out.push(this.#hydrate(r));
    return out;
  }

  // ---------------------------------------------------------------- summaries

  commitSummary(summary: NewSummary, replace?: FrontierReplace): CommitSummaryResult {
    return this.#db.transaction(() => this.#commitSummary(summary, replace)).immediate();
  }

  #commitSummary(input: NewSummary, replace?: FrontierReplace): CommitSummaryResult {
    const conv = this.#requireConversation(input.conversationId);
    if (input.kind !== "leaf" && input.kind !== "condensed") throw new Error(`commitSummary: kind must be "leaf" or "condensed"`);
    if (typeof input.content !== "string" || input.content.length === 0) throw new Error("commitSummary: content must be a non-empty string");
    const messageIds = [...(input.sourceMessageIds ?? [])];
    const childIds = [...(input.childSummaryIds ?? [])];
    if (input.kind === "leaf" && (messageIds.length === 0 || childIds.length > 0)) {
      throw new Error("commitSummary: a leaf summary covers messages (sourceMessageIds) and no summaries");
    }
    if (input.kind === "condensed" && (childIds.length === 0 || messageIds.length > 0)) {
      throw new Error("commitSummary: a condensed summary covers summaries (childSummaryIds) and no messages");
    }

    let earliest = Number.POSITIVE_INFINITY;
    let latest = Number.NEGATIVE_INFINITY;
    let firstSeq = Number.POSITIVE_INFINITY;
    let lastSeq = Number.NEGATIVE_INFINITY;
    let descendants = 0;
    let sourceTokens = 0;
    let orderedMessages: Array<{ id: number; seq: number }> = [];
    if (input.kind === "leaf") {
      for (const id of new Set(messageIds)) {
        const r = this.#s.messageMeta.get(id) as { id: number; conversation_id: number; seq: number; tokens: number; created_at: number } | undefined;
        if (!r || r.conversation_id !== conv.id) {
          return { ok: false, reason: "unknown_source", detail: `message ${id} is not in conversation ${conv.id}` };
        }
        orderedMessages.push({ id: r.id, seq: r.seq });
        earliest = Math.min(earliest, r.created_at);
        latest = Math.max(latest, r.created_at);
        firstSeq = Math.min(firstSeq, r.seq);
        lastSeq = Math.max(lastSeq, r.seq);
        descendants++;
        sourceTokens += r.tokens;
      }
      orderedMessages = orderedMessages.sort((a, b) => a.seq - b.seq);
    } else {
      let maxChildDepth = -1;
      for (const id of childIds) {
        const r = this.#s.summaryById.get(id) as SummaryRow | undefined;
        if (!r || r.conversation_id !== conv.id) {
          return { ok: false, reason: "unknown_source", detail: `summary ${id} is not in conversation ${conv.id}` };
        }
        maxChildDepth = Math.max(maxChildDepth, r.depth);
        earliest = Math.min(earliest, r.earliest_at);
        latest = Math.max(latest, r.latest_at);
        firstSeq = Math.min(firstSeq, r.first_seq);
        lastSeq = Math.max(lastSeq, r.last_seq);
        descendants += r.descendant_messages;
        sourceTokens += r.source_tokens;
      }
      if (input.depth <= maxChildDepth) {
        throw new Error(`commitSummary: a condensed summary's depth (${input.depth}) must exceed its children's (${maxChildDepth})`);
      }
    }

    const sources = input.kind === "leaf" ? orderedMessages.map((m) => `m${m.id}`).join(",") : childIds.join(",");
    const id = `sum_${createHash("sha256").update(`${conv.id}\u0000${input.kind}\u0000${input.depth}\u0000${sources}\u0000${input.content}`).digest("hex").slice(0, 16)}`;

    const existing = this.#s.summaryById.get(id) as SummaryRow | undefined;
    if (!existing) {
      const createdAt = input.createdAt ?? Date.now();
      this.#s.insertSummary.run(
        id, conv.id, input.kind, input.depth, input.content, Math.max(0, Math.round(input.tokens)), input.level ?? "normal",
        input.model ?? null, earliest, latest, firstSeq, lastSeq, descendants, sourceTokens,
        input.meta ? JSON.stringify(input.meta) : null, createdAt,
      );
      if (input.kind === "leaf") orderedMessages.forEach((m, i) => this.#s.insertSummaryMessage.run(id, i, m.id));
      else childIds.forEach((c, i) => this.#s.insertSummaryChild.run(id, i, c));
      const rid = (this.#s.summaryRowid.get(id) as { rid: number }).rid;
      this.#s.insertSummaryFts.run(rid, input.content, `c${conv.id}`);
    }
    const summary = toSummary(this.#s.summaryById.get(id) as SummaryRow);

    let version = conv.frontier_version;
    if (replace) {
      const already = this.#s.frontierHasSummary.get(conv.id, id);
      if (already && existing) return { ok: true, summary, frontierVersion: version };
      const rows = this.#s.frontierRange.all(conv.id, replace.fromOrdinal, replace.toOrdinal) as FrontierRow[];
      const same = rows.length === replace.expect.length && rows.every((r, i) => sameKey(toFrontierItem(r), replace.expect[i]!));
      if (!same || rows.length === 0) {
        if (!existing) this.#deleteSummaryRow(id); // nothing half-published
        return {
          ok: false,
          reason: "frontier_changed",
          detail: `frontier ordinals ${replace.fromOrdinal}..${replace.toOrdinal} no longer hold the expected ${replace.expect.length} items`,
        };
      }
      const covered = new Set<string>(input.kind === "leaf" ? orderedMessages.map((m) => `m${m.id}`) : childIds.map((c) => `s${c}`));
      const stray = rows.find((r) => !covered.has(r.message_id !== null ? `m${r.message_id}` : `s${r.summary_id}`));
      if (stray) {
        if (!existing) this.#deleteSummaryRow(id);
        return {
          ok: false,
          reason: "not_covered",
          detail: `frontier ordinal ${stray.ordinal} (${stray.message_id !== null ? `message ${stray.message_id}` : `summary ${stray.summary_id}`}) is not covered by the summary`,
        };
      }
      const removedTokens = rows.reduce((a, r) => a + r.tokens, 0);
      this.#s.deleteFrontierRange.run(conv.id, replace.fromOrdinal, replace.toOrdinal);
      this.#s.insertFrontier.run(conv.id, replace.fromOrdinal, null, id, summary.tokens);
      this.#s.bumpFrontier.run(summary.tokens - removedTokens, 1 - rows.length, Date.now(), conv.id);
      version++;
    }
    return { ok: true, summary, frontierVersion: version };
  }

  #deleteSummaryRow(id: string): void {
    const row = this.#s.summaryById.get(id) as SummaryRow | undefined;
    if (!row) return;
    const rid = (this.#s.summaryRowid.get(id) as { rid: number }).rid;
    this.#s.deleteSummaryFts.run(rid, row.content, `c${row.conversation_id}`);
    stmt(this.#db, "DELETE FROM summary_messages WHERE summary_id = ?").run(id);
    stmt(this.#db, "DELETE FROM summary_children WHERE summary_id = ?").run(id);
    stmt(this.#db, "DELETE FROM summaries WHERE id = ?").run(id);
  }

  getSummary(id: string): SummaryRecord | null {
    const r = this.#s.summaryById.get(id) as SummaryRow | undefined;
    return r ? toSummary(r) : null;
  }

  getSummaries(ids: readonly string[]): SummaryRecord[] {
    const out: SummaryRecord[] = [];
    for (const id of ids) {
      const s = this.getSummary(id);
      if (s) out.push(s);
    }
    return out;
  }

  listSummaries(conversationId: number, options: { depth?: number; kind?: SummaryKind } = {}): SummaryRecord[] {
    let rows = this.#s.summariesOf.all(conversationId) as SummaryRow[];
    if (options.depth !== undefined) rows = rows.filter((r) => r.depth === options.depth);
    if (options.kind !== undefined) rows = rows.filter((r) => r.kind === options.kind);
    return rows.map(toSummary);
  }

  lineage(summaryId: string): SummaryLineage {
    return {
      messageIds: (this.#s.summaryMessages.all(summaryId) as Array<{ message_id: number }>).map((r) => r.message_id),
      childSummaryIds: (this.#s.summaryChildren.all(summaryId) as Array<{ child_id: string }>).map((r) => r.child_id),
      parentSummaryIds: (this.#s.summaryParents.all(summaryId) as Array<{ summary_id: string }>).map((r) => r.summary_id),
    };
  }

  descendantMessageIds(summaryId: string): number[] {
    const rows = this.#s.descendants.all(summaryId) as Array<{ message_id: number }>;
    return rows.map((r) => r.message_id);
  }

  summariesCoveringMessage(messageId: number): string[] {
    return (this.#s.coveringSummaries.all(messageId) as Array<{ summary_id: string }>).map((r) => r.summary_id);
  }

  // ---------------------------------------------------------------- frontier

  getFrontier(conversationId: number): Frontier {
    const conv = this.#requireConversation(conversationId);
    const items = (this.#s.frontierAll.all(conversationId) as FrontierRow[]).map(toFrontierItem);
    return { conversationId, version: conv.frontier_version, tokens: conv.frontier_tokens, items };
  }

  getFrontierTail(conversationId: number, maxTokens: number, options: { minItems?: number } = {}): FrontierItem[] {
    const minItems = options.minItems ?? 0;
    const out: FrontierItem[] = [];
    let used = 0;
    for (const r of this.#s.frontierDesc.iterate(conversationId) as Iterable<FrontierRow>) {
      if (out.length >= minItems && used + r.tokens > maxTokens) break;
      used += r.tokens;
      out.push(toFrontierItem(r));
    }
    return out.reverse();
  }

  setFrontier(
    conversationId: number,
    items: readonly FrontierItemKey[],
    options: { expectedVersion?: number } = {},
  ): { ok: true; version: number } | { ok: false; version: number } {
    return this.#db
      .transaction(() => {
        const conv = this.#requireConversation(conversationId);
        if (options.expectedVersion !== undefined && options.expectedVersion !== conv.frontier_version) {
          return { ok: false as const, version: conv.frontier_version };
        }
        const resolved = items.map((k) => this.#resolveItem(conversationId, k));
        this.#s.clearFrontier.run(conversationId);
        let tokens = 0;
        resolved.forEach((r, i) => {
          this.#s.insertFrontier.run(conversationId, i, r.messageId, r.summaryId, r.tokens);
          tokens += r.tokens;
        });
        this.#s.setFrontierCounters.run(tokens, resolved.length, Date.now(), conversationId);
        return { ok: true as const, version: conv.frontier_version + 1 };
      })
      .immediate();
  }

  appendToFrontier(conversationId: number, items: readonly FrontierItemKey[]): number {
    return this.#db
      .transaction(() => {
        const conv = this.#requireConversation(conversationId);
        if (items.length === 0) return conv.frontier_version;
        let ordinal = ((this.#s.maxOrdinal.get(conversationId) as { m: number | null }).m ?? -1) + 1;
        let tokens = 0;
        for (const k of items) {
          const r = this.#resolveItem(conversationId, k);
          this.#s.insertFrontier.run(conversationId, ordinal++, r.messageId, r.summaryId, r.tokens);
          tokens += r.tokens;
        }
        this.#s.bumpFrontier.run(tokens, items.length, Date.now(), conversationId);
        return conv.frontier_version + 1;
      })
      .immediate();
  }

  #resolveItem(conversationId: number, k: FrontierItemKey): { messageId: number | null; summaryId: string | null; tokens: number } {
    if (k.kind === "message") {
      const r = this.#s.messageMeta.get(k.messageId) as { conversation_id: number; tokens: number } | undefined;
      if (!r || r.conversation_id !== conversationId) throw new Error(`frontier: message ${k.messageId} is not in conversation ${conversationId}`);
      return { messageId: k.messageId, summaryId: null, tokens: r.tokens };
    }
    const s = this.#s.summaryById.get(k.summaryId) as SummaryRow | undefined;
    if (!s || s.conversation_id !== conversationId) throw new Error(`frontier: summary ${k.summaryId} is not in conversation ${conversationId}`);
    return { messageId: null, summaryId: k.summaryId, tokens: s.tokens };
  }

  /**
   * Maintenance for idle time: merge the full-text index segments, give free
   * pages back to the file system and checkpoint the WAL. Seconds on a large
   * database; never needed for correctness.
   */
  compact(): { fileBytes: number } {
    this.indexPending();
    for (const t of ["messages_fts", "messages_cjk", "summaries_fts"]) this.#db.exec(`INSERT INTO ${t} (${t}) VALUES ('optimize')`);
    this.#db.pragma("incremental_vacuum");
    this.#db.pragma("wal_checkpoint(TRUNCATE)");
    return { fileBytes: this.stats().fileBytes };
  }

  // ---------------------------------------------------------------- write-behind indexing

  indexPending(options: { maxRows?: number; maxMs?: number } = {}): { indexed: number; remaining: number } {
    const maxRows = options.maxRows ?? Number.MAX_SAFE_INTEGER;
    const deadline = options.maxMs === undefined ? Number.POSITIVE_INFINITY : performance.now() + options.maxMs;
    let indexed = 0;
    const s = this.#s;
    if ((s.pendingCount.get() as { n: number }).n === 0) {
      this.#backlog = false;
      return { indexed: 0, remaining: 0 };
    }
    // Slices of up to 2,000 rows, one transaction each, so a long backlog never holds the lock for long.
    while (indexed < maxRows && performance.now() < deadline) {
      const slice = Math.min(2000, maxRows - indexed);
      const done = this.#db
        .transaction(() => {
          const rows = s.pendingSlice.all(slice) as Array<{ id: number; body: string; ctag: string; flags: number }>;
          for (const r of rows) {
            s.insertFts.run(r.id, r.body, r.ctag);
            if (r.flags & FLAG_CJK) s.insertCjk.run(r.id, r.body);
            s.deletePending.run(r.id);
          }
          return rows.length;
        })
        .immediate();
      indexed += done;
      if (done < slice) break;
    }
    const remaining = (s.pendingCount.get() as { n: number }).n;
    if (remaining === 0) this.#backlog = false;
    return { indexed, remaining };
  }

  // ---------------------------------------------------------------- payloads

  #putPayload(data: string | Buffer, mime: string | null): string {
    const buf = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    const hash = createHash("sha256").update(buf).digest("hex");
    this.#s.insertPayload.run(hash, buf.length, mime, typeof data === "string" ? 1 : 0, typeof data === "string" ? data : buf, Date.now());
    return hash;
  }

  putPayload(data: string | Buffer, mime: string | null = null): { hash: string; bytes: number } {
    const hash = this.#putPayload(data, mime);
    return { hash, bytes: typeof data === "string" ? Buffer.byteLength(data) : data.length };
  }

  getPayload(hash: string): PayloadRecord | null {
    const r = this.#s.payload.get(hash) as { hash: string; bytes: number; mime: string | null; is_text: number; data: Buffer | string } | undefined;
    if (!r) return null;
    const data = typeof r.data === "string" ? Buffer.from(r.data, "utf8") : r.data;
    return { hash: r.hash, bytes: r.bytes, mime: r.mime, text: r.is_text ? data.toString("utf8") : null, data };
  }

  searchStore(): LcmSearchStore {
    return searchStoreOf(this);
  }

  inFrontier(conversationId: number, item: FrontierItemKey): boolean {
    const [column, id] = item.kind === "message" ? ["message_id", item.messageId] : ["summary_id", item.summaryId];
    return stmt(this.#db, `SELECT 1 FROM frontier WHERE conversation_id = ? AND ${column} = ? LIMIT 1`).get(conversationId, id) !== undefined;
  }

  conversationUsage(): ConversationUsage[] {
    return conversationUsageRows(this.#db);
  }

  deleteConversation(conversationId: number): DeleteReport | null {
    return deleteConversationRows(this.#db, conversationId);
  }

  stats(): StoreStats {
    const c = (sql: string) => (stmt(this.#db, sql).get() as { n: number }).n;
    let fileBytes = 0;
    if (this.path !== ":memory:") {
      for (const suffix of ["", "-wal"]) {
        try {
          fileBytes += statSync(this.path + suffix).size;
        } catch {
          // no WAL file yet
        }
      }
    }
    return {
      path: this.path,
      schemaVersion: this.schemaVersion,
      conversations: c("SELECT count(*) AS n FROM conversations"),
      messages: c("SELECT count(*) AS n FROM messages"),
      summaries: c("SELECT count(*) AS n FROM summaries"),
      payloads: c("SELECT count(*) AS n FROM payloads"),
      pendingIndex: c("SELECT count(*) AS n FROM fts_pending"),
      fileBytes,
    };
  }
}

function prepare(db: Database.Database) {
  const msgCols = "id, conversation_id, seq, role, text, payload, shape, name, tool_call_id, extra, tokens, created_at, hash, flags";
  return {
    convBySession: db.prepare("SELECT * FROM conversations WHERE session_id = ?"),
    convById: db.prepare("SELECT * FROM conversations WHERE id = ?"),
    listConvs: db.prepare("SELECT * FROM conversations ORDER BY id"),
    insertConv: db.prepare("INSERT OR IGNORE INTO conversations (session_id, created_at, updated_at) VALUES (?, ?, ?)"),
    bumpConvAfterIngest: db.prepare(
      `UPDATE conversations SET message_count = message_count + ?, message_tokens = message_tokens + ?, text_bytes = text_bytes + ?,
         updated_at = ?, frontier_tokens = frontier_tokens + ?, frontier_count = frontier_count + ?, frontier_version = frontier_version + ?
       WHERE id = ?`,
    ),
    bumpFrontier: db.prepare(
      "UPDATE conversations SET frontier_tokens = frontier_tokens + ?, frontier_count = frontier_count + ?, frontier_version = frontier_version + 1, updated_at = ? WHERE id = ?",
    ),
    setFrontierCounters: db.prepare(
      "UPDATE conversations SET frontier_tokens = ?, frontier_count = ?, frontier_version = frontier_version + 1, updated_at = ? WHERE id = ?",
    ),
    // Alignment reads ~260 hashes every turn: as one "id hash id hash …" string (newest first), since
    // a row (let alone a Buffer) per hash costs more than the lookup itself.
    tailHashes: db.prepare(
      `SELECT group_concat(id || ' ' || lower(hex(hash)), ' ' ORDER BY seq DESC) AS list
       FROM (SELECT id, seq, hash FROM messages WHERE conversation_id = ? AND seq <= ? ORDER BY seq DESC LIMIT ?)`,
    ),
    // Hashes come back as hex text: a string per row is far cheaper than a Buffer per row.
    hashesNewestFirst: db.prepare("SELECT id, lower(hex(hash)) AS hash FROM messages WHERE conversation_id = ? ORDER BY seq DESC"),
    insertMessage: db.prepare(
      `INSERT INTO messages (conversation_id, seq, role, shape, text, payload, name, tool_call_id, extra, tokens, created_at, hash, flags)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    insertPart: db.prepare(
      "INSERT INTO message_parts (message_id, kind, ordinal, call_id, name, body, payload, span, extra) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    insertFts: db.prepare("INSERT INTO messages_fts (rowid, body, ctag) VALUES (?, ?, ?)"),
    insertCjk: db.prepare("INSERT INTO messages_cjk (rowid, body) VALUES (?, ?)"),
    insertPending: db.prepare("INSERT INTO fts_pending (message_id) VALUES (?)"),
    deletePending: db.prepare("DELETE FROM fts_pending WHERE message_id = ?"),
    pendingCount: db.prepare("SELECT count(*) AS n FROM fts_pending"),
    pendingSlice: db.prepare(
      `SELECT s.id AS id, s.body AS body, s.ctag AS ctag, m.flags AS flags FROM fts_pending p
       JOIN message_search s ON s.id = p.message_id JOIN messages m ON m.id = p.message_id ORDER BY p.message_id LIMIT ?`,
    ),
    insertPayload: db.prepare(
      "INSERT OR IGNORE INTO payloads (hash, bytes, mime, is_text, data, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    ),
    payloadText: db.prepare("SELECT CAST(data AS TEXT) AS t FROM payloads WHERE hash = ?"),
    payload: db.prepare("SELECT * FROM payloads WHERE hash = ?"),
    messageById: db.prepare(`SELECT ${msgCols} FROM messages WHERE id = ?`),
    messageBySeq: db.prepare(`SELECT ${msgCols} FROM messages WHERE conversation_id = ? AND seq = ?`),
    messageMeta: db.prepare("SELECT id, conversation_id, seq, tokens, created_at FROM messages WHERE id = ?"),
    rangeAsc: db.prepare(`SELECT ${msgCols} FROM messages WHERE conversation_id = ? AND seq BETWEEN ? AND ? ORDER BY seq LIMIT ?`),
    rangeDesc: db.prepare(`SELECT ${msgCols} FROM messages WHERE conversation_id = ? AND seq BETWEEN ? AND ? ORDER BY seq DESC LIMIT ?`),
    tokensInRange: db.prepare("SELECT sum(tokens) AS t FROM messages WHERE conversation_id = ? AND seq BETWEEN ? AND ?"),
    partsOf: db.prepare("SELECT * FROM message_parts WHERE message_id = ? ORDER BY kind, ordinal"),
    callMessage: db.prepare(
      `SELECT ${msgCols.split(", ").map((c) => `m.${c}`).join(", ")} FROM message_parts p JOIN messages m ON m.id = p.message_id
       WHERE p.call_id = ? AND p.kind = 1 AND m.conversation_id = ? ORDER BY m.seq LIMIT 1`,
    ),
    toolResults: db.prepare(`SELECT ${msgCols} FROM messages WHERE conversation_id = ? AND tool_call_id = ? ORDER BY seq`),
    insertSummary: db.prepare(
      `INSERT INTO summaries (id, conversation_id, kind, depth, content, tokens, level, model, earliest_at, latest_at, first_seq, last_seq,
         descendant_messages, source_tokens, meta, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    insertSummaryMessage: db.prepare("INSERT INTO summary_messages (summary_id, ordinal, message_id) VALUES (?, ?, ?)"),
    insertSummaryChild: db.prepare("INSERT INTO summary_children (summary_id, ordinal, child_id) VALUES (?, ?, ?)"),
    summaryRowid: db.prepare("SELECT rowid AS rid FROM summaries WHERE id = ?"),
    insertSummaryFts: db.prepare("INSERT INTO summaries_fts (rowid, body, ctag) VALUES (?, ?, ?)"),
    deleteSummaryFts: db.prepare("INSERT INTO summaries_fts (summaries_fts, rowid, body, ctag) VALUES ('delete', ?, ?, ?)"),
    summaryById: db.prepare("SELECT * FROM summaries WHERE id = ?"),
    summariesOf: db.prepare("SELECT * FROM summaries WHERE conversation_id = ? ORDER BY first_seq, depth"),
    summaryMessages: db.prepare("SELECT message_id FROM summary_messages WHERE summary_id = ? ORDER BY ordinal"),
    summaryChildren: db.prepare("SELECT child_id FROM summary_children WHERE summary_id = ? ORDER BY ordinal"),
    summaryParents: db.prepare("SELECT summary_id FROM summary_children WHERE child_id = ? ORDER BY summary_id"),
    coveringSummaries: db.prepare("SELECT summary_id FROM summary_messages WHERE message_id = ? ORDER BY summary_id"),
    descendants: db.prepare(
      `WITH RECURSIVE tree(id) AS (SELECT ? UNION SELECT c.child_id FROM summary_children c JOIN tree t ON c.summary_id = t.id)
       SELECT DISTINCT sm.message_id FROM summary_messages sm JOIN tree t ON sm.summary_id = t.id
       JOIN messages m ON m.id = sm.message_id ORDER BY m.seq`,
    ),
    maxOrdinal: db.prepare("SELECT max(ordinal) AS m FROM frontier WHERE conversation_id = ?"),
    insertFrontier: db.prepare("INSERT INTO frontier (conversation_id, ordinal, message_id, summary_id, tokens) VALUES (?, ?, ?, ?, ?)"),
    appendNewToFrontier: db.prepare(
      `INSERT INTO frontier (conversation_id, ordinal, message_id, summary_id, tokens)
       SELECT conversation_id, seq + ?, id, NULL, tokens FROM messages WHERE conversation_id = ? AND seq >= ? ORDER BY seq`,
    ),
    frontierAll: db.prepare("SELECT ordinal, message_id, summary_id, tokens FROM frontier WHERE conversation_id = ? ORDER BY ordinal"),
    frontierDesc: db.prepare("SELECT ordinal, message_id, summary_id, tokens FROM frontier WHERE conversation_id = ? ORDER BY ordinal DESC"),
    frontierRange: db.prepare(
      "SELECT ordinal, message_id, summary_id, tokens FROM frontier WHERE conversation_id = ? AND ordinal BETWEEN ? AND ? ORDER BY ordinal",
    ),
    frontierHasSummary: db.prepare("SELECT 1 FROM frontier WHERE conversation_id = ? AND summary_id = ?"),
    deleteFrontierRange: db.prepare("DELETE FROM frontier WHERE conversation_id = ? AND ordinal BETWEEN ? AND ?"),
    clearFrontier: db.prepare("DELETE FROM frontier WHERE conversation_id = ?"),
  };
}

/** The better-sqlite3 handle of a SQLite store (driver modules and SQLite-only tests). */
export function sqliteHandle(store: LcmStore): Database.Database {
  if (store instanceof SqliteLcmStore) return SqliteLcmStore.handleOf(store);
  throw new Error("not a SQLite LCM store");
}
